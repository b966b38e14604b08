/* A client that sends garbage to the emulated /dev/kfd: bad handles, null and wild
 * pointers, wrong sizes, unknown commands. Each must fail with the driver's errno, and a
 * valid call after them must still be served. Also reads the topology the thunk reads. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define IOC(dir, nr, size) (((unsigned long)(dir) << 30) | ((unsigned long)(size) << 16) | ('K' << 8) | (nr))

static int check(const char *what, long r, int want) {
    int got = r < 0 ? errno : 0;
    printf("%s: %s\n", what, got ? strerror(got) : "ok");
    fflush(stdout);
    return got == want ? 0 : 1;
}

int main(void) {
    int bad = 0;
    int kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
    if (kfd < 0) { perror("/dev/kfd"); return 2; }
    uint32_t ver[2] = {0, 0};
    bad |= check("GET_VERSION null", ioctl(kfd, IOC(2, 1, 8), NULL), EFAULT);
    bad |= check("GET_VERSION wild", ioctl(kfd, IOC(2, 1, 8), (void *)0x10), EFAULT);
    bad |= check("GET_VERSION kernel", ioctl(kfd, IOC(2, 1, 8), (void *)0xffff800000000000ul), EFAULT);
    uint64_t free_args = 0xdeadbeef;
    bad |= check("FREE bad handle", ioctl(kfd, IOC(1, 0x17, 8), &free_args), EINVAL);
    uint64_t alloc_args[5] = {0x700000000000ul, 4096, 0, 0, 0};
    bad |= check("ALLOC short size", ioctl(kfd, IOC(3, 0x16, 8), alloc_args), EINVAL);
    unsigned char junk[128];
    memset(junk, 0xa5, sizeof junk);
    bad |= check("unknown 0x7f", ioctl(kfd, IOC(3, 0x7f, 64), junk), EINVAL);
    bad |= check("DBG_TRAP", ioctl(kfd, IOC(3, 0x82, 40), junk), EINVAL);
    bad |= check("CREATE_QUEUE junk", ioctl(kfd, IOC(3, 2, 88), junk), EINVAL);
    /* A forked child may not use its parent's KFD context. */
    pid_t child = fork();
    if (child == 0) _exit(check("child GET_VERSION", ioctl(kfd, IOC(2, 1, 8), ver), EBADF));
    int status = 1;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
        bad = 1;
    bad |= check("GET_VERSION", ioctl(kfd, IOC(2, 1, 8), ver), 0);
    printf("version %u.%u\n", ver[0], ver[1]);
    if (ver[0] != 1 || ver[1] != 8) bad = 1;
    if (close(kfd) != 0) bad = 1;
    FILE *f = fopen("/sys/devices/virtual/kfd/kfd/topology/nodes/1/properties", "r");
    char line[128];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "simd_count ", 11) || !strncmp(line, "gfx_target_version ", 19)) printf("%s", line);
    if (!f) bad = 1; else fclose(f);
    return bad;
}
