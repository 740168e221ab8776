/*
 * test_tar.c - the tar writer (output/tar.h): a header's fields and
 * checksum byte for byte as POSIX ustar lays them out, names split into
 * prefix and name, names that fit nowhere refused, a file's bytes padded
 * to 512, and the two zero blocks of the end; then `tar -tvf` lists what
 * was written (when tar is installed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "output/tar.h"

/* The checksum as POSIX defines it: every byte of the header, the checksum field taken as 8 spaces. */
static unsigned header_sum(const unsigned char *b)
{
	unsigned s = 0;

	for (int i = 0; i < TL_TAR_BLOCK; i++)
		s += i >= 148 && i < 156 ? ' ' : b[i];
	return s;
}

TEST(header_fields)
{
	unsigned char b[TL_TAR_BLOCK];
	char sum[8];

	CHECK_EQ_INT(tl_tar_header(b, ".build-id/0f/e4d5/elf", 5, 1700000000), 0);
	CHECK_EQ_STR((char *)b, ".build-id/0f/e4d5/elf");
	CHECK_EQ_STR((char *)b + 100, "0000644");
	CHECK_EQ_STR((char *)b + 108, "0000000");
	CHECK_EQ_STR((char *)b + 124, "00000000005");
	CHECK_EQ_STR((char *)b + 136, "14524770400"); /* 1700000000 in octal */
	CHECK_EQ_INT(b[156], '0');
	CHECK_EQ_STR((char *)b + 257, "ustar");
	CHECK(!memcmp(b + 263, "00", 2));
	CHECK_EQ_STR((char *)b + 345, "");
	snprintf(sum, sizeof(sum), "%06o", header_sum(b));
	CHECK(!memcmp(b + 148, sum, 6) && b[154] == 0 && b[155] == ' ');
}

TEST(long_names)
{
	unsigned char b[TL_TAR_BLOCK];
	char name[300];

	/* 120 bytes: split at the last '/' that leaves at most 100 for the name */
	memset(name, 'a', 120);
	name[50] = '/';
	name[120] = 0;
	CHECK_EQ_INT(tl_tar_header(b, name, 0, 0), 0);
	CHECK_EQ_INT(strlen((char *)b + 345), 50);
	CHECK_EQ_INT(strnlen((char *)b, 100), 69);
	/* a last part over 100 bytes, or a prefix over 155: no header */
	name[50] = 'a';
	name[10] = '/';
	CHECK_EQ_INT(tl_tar_header(b, name, 0, 0), -1);
	memset(name, 'a', 290);
	name[200] = '/';
	name[290] = 0;
	CHECK_EQ_INT(tl_tar_header(b, name, 0, 0), -1);
}

TEST(file_and_end)
{
	char path[] = "/tmp/tl-test-tar-XXXXXX", tar[64], cmd[128], line[256];
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len), *f;
	int fd = mkstemp(path);

	CHECK(fd >= 0 && out != NULL);
	CHECK_EQ_INT(write(fd, "hello", 5), 5);
	CHECK_EQ_INT(tl_tar_add_fd(out, "dir/hello.txt", fd, 5, 0), 0);
	CHECK_EQ_INT(tl_tar_add_fd(out, "dir/empty", fd, 0, 0), 0);
	CHECK_EQ_INT(tl_tar_add_fd(out, "dir/more", fd, 6, 0), -1); /* the file has 5 bytes */
	fclose(out);
	/* header, 5 bytes padded to a block, an empty file's header; the failed one's header and 5 bytes */
	CHECK_EQ_INT(len, 4 * TL_TAR_BLOCK + 5);
	CHECK(buf && !memcmp(buf + TL_TAR_BLOCK, "hello", 5) && buf[TL_TAR_BLOCK + 5] == 0);
	free(buf);

	/* a whole archive, as tar reads it */
	snprintf(tar, sizeof(tar), "%s.tar", path);
	CHECK((out = fopen(tar, "w")) != NULL);
	CHECK_EQ_INT(tl_tar_add_fd(out, "dir/hello.txt", fd, 5, 1700000000), 0);
	CHECK_EQ_INT(tl_tar_end(out), 0);
	CHECK_EQ_INT(fclose(out), 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "tar -xOf %s dir/hello.txt 2>&1", tar);
	if (system("command -v tar >/dev/null 2>&1") == 0 && (f = popen(cmd, "r"))) {
		CHECK(fgets(line, sizeof(line), f) != NULL);
		CHECK_EQ_STR(line, "hello");
		pclose(f);
	}
	unlink(path);
	unlink(tar);
}

int main(void)
{
	RUN_TESTS(header_fields, long_names, file_and_end);
}
