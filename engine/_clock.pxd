# The monotonic clock of the compiled modules (engine and search), inline: this .pxd has
# no module of its own. The deadlines the bots pass in (time.monotonic()) use the same.
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC


cdef inline double now_s() noexcept nogil:
    """Seconds on the monotonic clock."""
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9
