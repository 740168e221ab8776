/*
 * noreturn.c - the source of noreturn.elf, a fixture of
 * tests/unit/test_profile.c (committed, built once: see ../README.md).
 * fail() ends with a call to stop(), which does not return, so no
 * instruction follows the call in fail(): its return address is the
 * first byte of the next function, after().  A profiler that names a
 * caller at its return address names after() there, not fail().
 */
__attribute__((noreturn, noinline)) void stop(int code)
{
	for (;;)
		__asm__ volatile("" : : "r"(code));
}

__attribute__((noinline)) void fail(int code)
{
	stop(code + 1);
}

__attribute__((noinline)) int after(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 2;
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 5)
		fail(argc);
	return after(argc) & 1;
}
