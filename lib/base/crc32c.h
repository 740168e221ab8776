/*
 * crc32c.h - CRC-32C (Castagnoli), the checksum of every trace block.
 *
 * The same value on every CPU: x86-64 CPUs with SSE4.2 compute it with the
 * crc32 instruction, others with slicing-by-8 tables (built once, on first
 * use, thread-safely).
 */
#ifndef TL_CRC32C_H
#define TL_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * Continue a CRC-32C over len more bytes.  Start with crc = 0; the value
 * returned is the finished checksum of everything fed so far, so
 * tl_crc32c(tl_crc32c(0, a, n), b, m) == tl_crc32c(0, a||b, n + m).
 * crc32c("123456789") is 0xe3069283.
 */
uint32_t tl_crc32c(uint32_t crc, const void *buf, size_t len);

/* The table-driven version, whatever the CPU: what the tests compare against. */
uint32_t tl_crc32c_portable(uint32_t crc, const void *buf, size_t len);

#endif
