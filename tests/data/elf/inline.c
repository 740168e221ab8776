/*
 * inline.c - the source of inline.elf, the DWARF fixture of
 * tests/unit/test_dwinline.c (committed, built once: see README.md).
 * sq has no symbol: it is inlined twice.  twice is inlined once and also
 * called out of line, through a pointer.  never_inlined is not inlined.
 */
static inline __attribute__((always_inline)) int sq(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * x;
}

int twice(int x);
inline __attribute__((always_inline)) int twice(int x)
{
	__asm__ volatile("" : "+r"(x));
	return 2 * x;
}

__attribute__((noinline)) int never_inlined(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

int main(int argc, char **argv)
{
	int (*volatile p)(int) = twice;
	int s = sq(argc);        /* sq, copy 1 */
	s += sq(s + (int)!argv); /* sq, copy 2 */
	s += twice(s);           /* twice, inlined */
	s += p(s);               /* twice, out of line */
	return never_inlined(s) & 1;
}
