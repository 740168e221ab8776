/*
 * crc32c.h - CRC-32C (Castagnoli), the checksum of every trace block.
 *
 * Software only, so traces read the same on every CPU; slicing-by-8 tables
 * make it fast enough (a few GB/s) that checksumming never shows next to
 * zstd.  The tables are built once, on first use, thread-safely.
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

#endif
