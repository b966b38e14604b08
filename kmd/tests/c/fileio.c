/* Ordinary file IO that the kmd interposer must pass through untouched. Prints what it
 * observed; the test runs it with and without LD_PRELOAD and compares. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    const char *dir = argv[1];
    char path[4096];
    snprintf(path, sizeof path, "%s/a.txt", dir);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0640);
    if (fd < 0 || write(fd, "hello kmd\n", 10) != 10 || close(fd) != 0) return 3;
    struct stat st;
    if (stat(path, &st) != 0) return 4;
    printf("size %lld mode %o\n", (long long)st.st_size, st.st_mode & 0777);
    FILE *f = fopen(path, "r");
    char line[64] = {0};
    if (!f || !fgets(line, sizeof line, f)) return 5;
    fclose(f);
    printf("read %s", line);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    int rfd = openat(dfd, "a.txt", O_RDONLY);
    char buf[5] = {0};
    if (rfd < 0 || read(rfd, buf, 4) != 4) return 6;
    printf("openat %s\n", buf);
    int pipefd[2];
    if (pipe(pipefd) != 0 || write(pipefd[1], "xyz", 3) != 3) return 7;
    int avail = -1;
    if (ioctl(pipefd[0], FIONREAD, &avail) != 0) return 8;
    printf("fionread %d\n", avail);
    printf("access %d %d\n", access(path, R_OK), access("/nonexistent/x", F_OK));
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) n += e->d_name[0] != '.';
    if (d) closedir(d);
    printf("entries %d\n", n);
    close(rfd); close(dfd); close(pipefd[0]); close(pipefd[1]);
    printf("unlink %d\n", unlink(path));
    return 0;
}
