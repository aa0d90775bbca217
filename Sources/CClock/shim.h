// The kernel's view of clock synchronization (adjtimex), which Swift's Glibc module leaves out.
#ifndef GPSTRACKD_CCLOCK_SHIM_H
#define GPSTRACKD_CCLOCK_SHIM_H

#include <stdbool.h>
#include <sys/timex.h>

/// True when the kernel clock is synchronized (by systemd-timesyncd, chrony, ntpd or a
/// GPS-disciplined source): adjtimex reports no TIME_ERROR and STA_UNSYNC is clear.
static inline bool gpstrackd_clock_synchronized(void) {
    struct timex tx = {0};
    int state = adjtimex(&tx);
    return state >= 0 && state != TIME_ERROR && (tx.status & STA_UNSYNC) == 0;
}

#endif
