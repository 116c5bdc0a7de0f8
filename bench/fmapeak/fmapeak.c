// fmapeak measures the machine's double-precision FMA throughput, the
// ceiling of the block products' arithmetic: twelve independent chains of
// 512-bit (or, with -DYMM, 256-bit) fused multiply-adds, on one thread and
// on every CPU at once.
//
//	gcc -O2 -mavx512f -pthread bench/fmapeak/fmapeak.c -o /tmp/fmapeak && /tmp/fmapeak
//	gcc -O2 -mavx2 -mfma -DYMM -pthread bench/fmapeak/fmapeak.c -o /tmp/fmapeak && /tmp/fmapeak
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#ifdef YMM
#define R(i) "%%ymm" #i
#define LANES 4
#else
#define R(i) "%%zmm" #i
#define LANES 8
#endif
#define F(i) "vfmadd231pd " R(14) "," R(15) "," R(i) "\n"

static const long steps = 100000000L;

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void *run(void *arg) {
	(void)arg;
	for (long k = 0; k < steps; k++) {
		__asm__ volatile(F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11)
		                 ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
		                   "xmm8", "xmm9", "xmm10", "xmm11");
	}
	return NULL;
}

int main(void) {
	long p = sysconf(_SC_NPROCESSORS_ONLN);
	double t = now();
	run(NULL);
	double one = 12.0 * LANES * steps / (now() - t) / 1e9;
	pthread_t th[256];
	if (p > 256) p = 256;
	t = now();
	for (long i = 0; i < p; i++) pthread_create(&th[i], NULL, run, NULL);
	for (long i = 0; i < p; i++) pthread_join(th[i], NULL);
	double all = 12.0 * LANES * steps * p / (now() - t) / 1e9;
	printf("fma_peak: %.1f GFMA/s on 1 thread, %.1f GFMA/s on %ld (doubles, %d lanes)\n", one, all, p, LANES);
	return 0;
}
