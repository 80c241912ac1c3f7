/*
 * Linked into a copy of the 4.4.1 server by trace-build.sh: every random draw
 * (chance, roll, roll0, pct_chance, roundavg) and every reseeding is written,
 * with the addresses of its callers, to the file named by EMP_DRAWLOG.
 * draws.py turns the addresses into function names and compares the draws
 * with bellum's.  The server's own code is not changed: the linker routes
 * its calls here (--wrap), and these call the real functions.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int __real_chance(double);
int __real_roll0(int);
int __real_roll(int);
int __real_roundavg(double);
void __real_seed_prng(unsigned);

static FILE *drawlog;

/* One line: what, its argument, its result, then up to five callers. */
static void
note(const char *what, double arg, double res)
{
    void *frames[8];
    Dl_info info;
    int n, i;

    if (!drawlog) {
	const char *name = getenv("EMP_DRAWLOG");
	if (!name || !(drawlog = fopen(name, "a")))
	    return;
    }
    n = backtrace(frames, 8);
    fprintf(drawlog, "%s %.17g %.17g", what, arg, res);
    for (i = 2; i < n; i++)
	if (dladdr(frames[i], &info) && info.dli_fbase)
	    fprintf(drawlog, " %lx",
		    (unsigned long)((char *)frames[i] - (char *)info.dli_fbase - 1));
    fputc('\n', drawlog);
    fflush(drawlog);
}

int
__wrap_chance(double p)
{
    int r = __real_chance(p);

    note("chance", p, r);
    return r;
}

int
__wrap_roundavg(double x)
{
    int r = __real_roundavg(x);

    note("chance", x - floor(x), r - floor(x));
    return r;
}

int
__wrap_roll0(int n)
{
    int r = __real_roll0(n);

    note("roll0", n, r);
    return r;
}

int
__wrap_roll(int n)
{
    int r = __real_roll(n);

    note("roll0", n, r - 1);
    return r;
}

/* A roll of 1..100 against the percentage, logged as the roll it is. */
int
__wrap_pct_chance(int pct)
{
    return __wrap_roll(100) <= pct;
}

void
__wrap_seed_prng(unsigned seed)
{
    note("seed", seed, 0);
    __real_seed_prng(seed);
}
