// The CRC-32C instruction, which Swift cannot reach: a checksum per typed
// entry, twice (entries-file and journal record), was a tenth of the
// daemon's time at 10,000 sessions with the table-driven version.
#include "CChecksum.h"

#include <string.h>

#if defined(__x86_64__)

int monkey_crc32c_is_accelerated(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2");
}

__attribute__((target("sse4.2")))
uint32_t monkey_crc32c_accelerated(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *next = bytes;
    uint64_t state = ~crc;
    for (; count >= 8; count -= 8, next += 8) {
        uint64_t word;
        memcpy(&word, next, 8);
        state = __builtin_ia32_crc32di(state, word);
    }
    uint32_t narrow = (uint32_t)state;
    for (; count > 0; count--, next++) {
        narrow = __builtin_ia32_crc32qi(narrow, *next);
    }
    return ~narrow;
}

#else

int monkey_crc32c_is_accelerated(void) { return 0; }

uint32_t monkey_crc32c_accelerated(uint32_t crc, const void *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}

#endif
