/*
 * test_locknames.c - naming futex words (capture/locknames.h), exact, on
 * this test program's own process: a mutex in .bss and one in .data are
 * named by their symbols, one inside a struct by the struct and the
 * offset, a word on the heap (the program break's area), on the stack and
 * in an anonymous mapping by the mapping; an address in no mapping gets no name; a word is named
 * once; and the pure resolver on a hand-written maps text.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "capture/locknames.h"

pthread_mutex_t tl_test_bss_lock;                                           /* .bss */
pthread_mutex_t tl_test_data_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP; /* .data */
struct pool {
	char pad[64];
	pthread_mutex_t m;
} tl_test_pool;

static void named(struct tl_locknames *ln, const void *addr, const char *want)
{
	char name[TL_LOCKNAME_MAX] = "";

	CHECK_EQ_INT(tl_locknames_note(ln, getpid(), (uint64_t)(uintptr_t)addr, name, sizeof(name)), 1);
	CHECK_EQ_STR(name, want);
}

TEST(own_process)
{
	struct tl_locknames *ln = tl_locknames_new();
	int on_stack = 0;
	char *heap = sbrk(4096), name[TL_LOCKNAME_MAX]; /* the break's area: malloc's is ASan's own mapping there */
	void *anon = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(ln && heap != (void *)-1 && anon != MAP_FAILED);
	if (!ln || heap == (void *)-1 || anon == MAP_FAILED)
		return;
	named(ln, &tl_test_bss_lock, "tl_test_bss_lock (test_locknames)");
	named(ln, &tl_test_data_lock, "tl_test_data_lock (test_locknames)");
	named(ln, &tl_test_pool.m, "tl_test_pool+0x40 (test_locknames)");
	named(ln, heap, "[heap]");
	named(ln, &on_stack, "[stack]");
	named(ln, anon, "[anon]");
	/* once per word; an address in no mapping has no name */
	CHECK_EQ_INT(tl_locknames_note(ln, getpid(), (uint64_t)(uintptr_t)&tl_test_bss_lock, name, sizeof(name)), 0);
	CHECK_EQ_INT(tl_locknames_note(ln, getpid(), 8, name, sizeof(name)), 0);
	/* a process that is gone */
	CHECK_EQ_INT(tl_locknames_note(ln, 0x7ffffff0, 0x1000, name, sizeof(name)), 0);
	tl_locknames_free(ln);
	munmap(anon, 1 << 20);
}

/* At most TL_LOCKNAMES_PER_PROC words a process are named (a mutex per object would be thousands), each once. */
TEST(per_process_cap)
{
	struct tl_locknames *ln = tl_locknames_new();
	char *anon = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
	     name[TL_LOCKNAME_MAX];
	int named = 0;

	CHECK(ln != NULL && anon != MAP_FAILED);
	if (!ln || anon == MAP_FAILED)
		return;
	for (int round = 0; round < 2; round++) /* 1000 words of one mapping, twice */
		for (size_t i = 0; i < 1000; i++)
			named += tl_locknames_note(ln, getpid(), (uint64_t)(uintptr_t)(anon + 64 * i), name,
			                           sizeof(name));
	CHECK_EQ_INT(named, TL_LOCKNAMES_PER_PROC);
	tl_locknames_free(ln);
	munmap(anon, 1 << 20);
}

static const struct tl_symfile *no_file(void *ctx, const char *path, size_t len)
{
	(void)ctx, (void)path, (void)len;
	return NULL;
}

TEST(resolve_text)
{
	static const char maps[] = "55d0a1e00000-55d0a1e01000 r--p 00000000 fe:01 123 /opt/app (deleted)\n"
	                           "55d0a1e01000-55d0a1e02000 rw-p 00001000 fe:01 123 /opt/app (deleted)\n"
	                           "55d0a2000000-55d0a2021000 rw-p 00000000 00:00 0          [heap]\n"
	                           "7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \n"
	                           "not a line\n";
	char name[TL_LOCKNAME_MAX];

	/* a file that cannot be read: its mapping's path */
	CHECK_EQ_INT(tl_locknames_resolve(maps, sizeof(maps) - 1, 0x55d0a1e01010, no_file, NULL, name, sizeof(name)),
	             1);
	CHECK_EQ_STR(name, "/opt/app (deleted)");
	CHECK_EQ_INT(tl_locknames_resolve(maps, sizeof(maps) - 1, 0x55d0a2000100, no_file, NULL, name, sizeof(name)),
	             1);
	CHECK_EQ_STR(name, "[heap]");
	CHECK_EQ_INT(tl_locknames_resolve(maps, sizeof(maps) - 1, 0x7f0000000040, no_file, NULL, name, sizeof(name)),
	             1);
	CHECK_EQ_STR(name, "[anon]");
	CHECK_EQ_INT(tl_locknames_resolve(maps, sizeof(maps) - 1, 0x1000, no_file, NULL, name, sizeof(name)), 0);
	CHECK_EQ_INT(tl_locknames_resolve("", 0, 0x1000, no_file, NULL, name, sizeof(name)), 0);
}

int main(void)
{
	RUN_TESTS(own_process, per_process_cap, resolve_text);
}
