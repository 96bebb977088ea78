#ifndef MONKEYD_CPREFETCH_H
#define MONKEYD_CPREFETCH_H

/// Asks the processor to bring the cache line holding `address` into its
/// caches, for writing, without waiting for it: a hint that changes no
/// value. Inline, so that Swift callers get the one instruction.
static inline void monkey_prefetch_for_writing(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

/// The same, for reading only.
static inline void monkey_prefetch_for_reading(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
