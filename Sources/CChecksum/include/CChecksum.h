#ifndef MONKEYD_CCHECKSUM_H
#define MONKEYD_CCHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/// Whether this processor has the CRC-32C instruction (SSE 4.2 on x86-64).
int monkey_crc32c_is_accelerated(void);

/// CRC-32C of `count` bytes continuing from `crc` (0 to start), with the
/// processor's instruction: call only when monkey_crc32c_is_accelerated().
uint32_t monkey_crc32c_accelerated(uint32_t crc, const void *bytes, size_t count);

#endif
