/*
 * test_tidmap.c - the tid-keyed map against a plain array, under random
 * inserts, lookups and removals (removal by backward shift is the part that
 * is easy to get wrong), plus growth and iteration.
 */
#include <stdlib.h>

#include "harness.h"
#include "base/tidmap.h"

#define MAXTID 5000

struct val {
	int32_t tid;
	uint64_t payload;
};

TEST(random_against_reference)
{
	struct tl_tidmap m;
	static uint64_t ref[MAXTID + 1]; /* 0 = absent, else payload */
	size_t live = 0;
	unsigned seed = 12345;

	CHECK_EQ_INT(tl_tidmap_init(&m, sizeof(struct val)), 0);
	for (int i = 0; i < 400000; i++) {
		int32_t tid = (int32_t)(rand_r(&seed) % MAXTID) + 1;
		int op = rand_r(&seed) % 3;
		struct val *v;
		int created;

		if (op == 0) {
			v = tl_tidmap_put(&m, tid, &created);
			CHECK(v != NULL);
			if (!v)
				break;
			CHECK_EQ_INT(created, ref[tid] == 0);
			v->payload = (uint64_t)i + 1;
			live += created;
			ref[tid] = (uint64_t)i + 1;
		} else if (op == 1) {
			tl_tidmap_remove(&m, tid);
			live -= ref[tid] != 0;
			ref[tid] = 0;
		} else {
			v = tl_tidmap_get(&m, tid);
			CHECK_EQ_INT(v ? v->payload : 0, ref[tid]);
		}
	}
	CHECK_EQ_INT(m.count, live);
	for (int32_t tid = 1; tid <= MAXTID; tid++) {
		struct val *v = tl_tidmap_get(&m, tid);
		CHECK_EQ_INT(v ? v->payload : 0, ref[tid]);
		if (v)
			CHECK_EQ_INT(v->tid, tid);
	}
	tl_tidmap_release(&m);
}

TEST(growth_and_iteration)
{
	struct tl_tidmap m;
	size_t pos = 0, seen = 0;
	uint64_t sum = 0;
	struct val *v;

	CHECK_EQ_INT(tl_tidmap_init(&m, sizeof(struct val)), 0);
	for (int32_t tid = 1; tid <= 100000; tid++)
		CHECK(tl_tidmap_put(&m, tid, NULL) != NULL);
	CHECK_EQ_INT(m.count, 100000);
	CHECK(m.cap >= 200000);
	while ((v = tl_tidmap_next(&m, &pos))) {
		seen++;
		sum += (uint64_t)v->tid;
	}
	CHECK_EQ_INT(seen, 100000);
	CHECK_EQ_INT(sum, 100000ull * 100001 / 2);
	CHECK(tl_tidmap_put(&m, 0, NULL) == NULL); /* 0 marks empty slots: not a key */
	CHECK(tl_tidmap_get(&m, -5) == NULL);
	tl_tidmap_release(&m);
}

/* A small map: room for 4 in 8 slots, then it grows like any other. */
TEST(small_room)
{
	struct tl_tidmap m;
	size_t pos = 0, seen = 0;

	CHECK_EQ_INT(tl_tidmap_init_room(&m, sizeof(struct val), 4), 0);
	CHECK_EQ_INT(m.cap, 8);
	for (int32_t tid = 1; tid <= 4; tid++)
		CHECK(tl_tidmap_put(&m, tid * 1000, NULL) != NULL);
	CHECK_EQ_INT(m.cap, 8);
	CHECK(tl_tidmap_put(&m, 5000, NULL) != NULL);
	CHECK_EQ_INT(m.cap, 16);
	tl_tidmap_remove(&m, 2000);
	CHECK(tl_tidmap_get(&m, 2000) == NULL && tl_tidmap_get(&m, 3000) != NULL);
	while (tl_tidmap_next(&m, &pos))
		seen++;
	CHECK_EQ_INT(seen, 4);
	tl_tidmap_release(&m);
	CHECK_EQ_INT(tl_tidmap_init_room(&m, sizeof(struct val), 0), 0);
	CHECK_EQ_INT(m.cap, 8); /* the least */
	tl_tidmap_release(&m);
	CHECK_EQ_INT(tl_tidmap_init(&m, sizeof(struct val)), 0);
	CHECK_EQ_INT(m.cap, 1024); /* as before */
	tl_tidmap_release(&m);
}

int main(void)
{
	RUN_TESTS(random_against_reference, growth_and_iteration, small_room);
}
