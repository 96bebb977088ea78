/*
 * The plain C loop the typing kernel is measured beside (bench/typing.sh):
 * entries of 10,000 letters into a ring of 100 entries, one wyrand draw
 * per character reduced without bias (Lemire's method, as monkeyd(8)
 * specifies seeded typing), memmem for the target in each entry.
 * "lanes" takes four letters from each draw (16-bit lanes, slightly
 * biased: only a bound). Prints characters per second of CPU.
 *
 *   typing-reference [exact|lanes] [SECONDS]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MONKEYS 10000
#define RING 100

static const char letters[] = "abcdefghijklmnopqrstuvwxyz";
static const char target[] = "to be or not to be";

static uint64_t draw(uint64_t *state)
{
	*state += 0xa0761d6478bd642f;
	__uint128_t p = (__uint128_t)*state * (*state ^ 0xe7037ed1a0b428db);
	return (uint64_t)(p >> 64) ^ (uint64_t)p;
}

static uint64_t pick(uint64_t *state, uint64_t k)
{
	__uint128_t p = (__uint128_t)draw(state) * k;
	while ((uint64_t)p < -k % k)
		p = (__uint128_t)draw(state) * k;
	return (uint64_t)(p >> 64);
}

static double cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int lanes = argc > 1 && strcmp(argv[1], "lanes") == 0;
	double seconds = argc > 2 ? atof(argv[2]) : 1.0;
	static char ring[RING][MONKEYS];
	uint64_t state = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15;
	uint64_t characters = 0, hits = 0, entry = 0;
	size_t target_length = strlen(target);
	double start = cpu_seconds(), elapsed = 0;
	while (elapsed < seconds) {
		for (int batch = 0; batch < 100; batch++, entry++) {
			char *text = ring[entry % RING];
			if (lanes) {
				for (int i = 0; i < MONKEYS; i += 4) {
					uint64_t r = draw(&state);
					for (int lane = 0; lane < 4; lane++)
						text[i + lane] = letters[((r >> (16 * lane)) & 0xffff) * 26 >> 16];
				}
			} else {
				for (int i = 0; i < MONKEYS; i++)
					text[i] = letters[pick(&state, 26)];
			}
			if (memmem(text, MONKEYS, target, target_length))
				hits++;
			characters += MONKEYS;
		}
		elapsed = cpu_seconds() - start;
	}
	printf("c-%s %.0f M characters per CPU-second (%llu characters, hits %llu, last %c)\n",
	    lanes ? "lanes" : "exact", characters / elapsed / 1e6, (unsigned long long)characters,
	    (unsigned long long)hits, ring[0][0]);
	return 0;
}
