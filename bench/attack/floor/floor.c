// floor.c: the least CPU a generator can spend to send each request at its
// own due instant, as a reference for loadlab's -precise pacer (issue 23's
// "paced CPU" goal). One thread; keep-alive connections; between sends it
// sleeps in epoll_pwait2 with a nanosecond timeout until the next due time
// (timer slack 1 ns) and reads whatever answers arrived; optionally it
// wakes SPIN_US early and spins to the due time, as -precise does. No
// parsing: every answer of the target has the same size, learned from a
// first request. Nothing is recorded but each request's lag (sent - due).
//
// Usage: floor PORT PATH RATE SECONDS [SPIN_US]   (127.0.0.1 only)
// Prints: sent N answered N lag mean X us, over 100 us N
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define K 64 /* connections */

static long long now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int dial(int port) {
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	if (fd < 0 || connect(fd, (void *)&a, sizeof a)) {
		perror("connect");
		exit(1);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

int main(int argc, char **argv) {
	if (argc < 5) {
		fprintf(stderr, "usage: floor PORT PATH RATE SECONDS [SPIN_US]\n");
		return 2;
	}
	int port = atoi(argv[1]), rate = atoi(argv[3]), secs = atoi(argv[4]);
	int spin_us = argc > 5 ? atoi(argv[5]) : 0;
	long long gap = 1000000000LL / rate, n = (long long)rate * secs;
	char req[512];
	int rl = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", argv[2]);
	static char buf[65536];
	prctl(PR_SET_TIMERSLACK, 1);

	// The answer's size: one request, read until the head's Content-Length
	// is complete.
	int probe = dial(port);
	if (write(probe, req, rl) != rl) { perror("write"); return 1; }
	long long asz = 0, have = 0;
	for (;;) {
		ssize_t r = read(probe, buf + have, sizeof buf - 1 - have);
		if (r <= 0) { fprintf(stderr, "probe: no answer\n"); return 1; }
		have += r;
		buf[have] = 0;
		char *end = strstr(buf, "\r\n\r\n"), *cl = strcasestr(buf, "content-length:");
		if (end && cl) {
			asz = (end + 4 - buf) + atoll(cl + 15);
			if (have >= asz) break;
		}
	}
	close(probe);

	int ep = epoll_create1(0), fds[K], busy[K], idle[K], nidle = 0;
	long long want[K], got[K];
	for (int i = 0; i < K; i++) {
		fds[i] = dial(port);
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};
		epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev);
		busy[i] = 0, want[i] = got[i] = 0;
		idle[nidle++] = i;
	}
	long long start = now_ns() + 10000000, sent = 0, answered = 0, lagsum = 0, over = 0;
	long long *lags = calloc(n, sizeof *lags);
	struct epoll_event evs[K];
	while (answered < n) {
		long long t = now_ns(), due = start + sent * gap;
		if (sent < n && t >= due && nidle > 0) {
			int c = idle[--nidle];
			if (write(fds[c], req, rl) != rl) { perror("write"); return 1; }
			lags[sent++] = now_ns() - due;
			busy[c] = 1, want[c] += asz;
			continue;
		}
		// Sleep until the next due time (less SPIN_US), or only look for
		// answers when it is due and every connection is busy.
		struct timespec to = {0, 0}, *top = NULL;
		if (sent < n && nidle > 0) {
			long long left = due - t - spin_us * 1000LL;
			if (left < 0) left = 0;
			to.tv_sec = left / 1000000000LL, to.tv_nsec = left % 1000000000LL;
			top = &to;
		} else if (sent < n) {
			top = &to;
		}
		int k = syscall(SYS_epoll_pwait2, ep, evs, K, top, NULL, 0);
		if (k < 0) {
			if (errno == EINTR) continue;
			perror("epoll_pwait2");
			return 1;
		}
		for (int i = 0; i < k; i++) {
			int c = evs[i].data.u32;
			ssize_t r = read(fds[c], buf, sizeof buf);
			if (r <= 0) { fprintf(stderr, "read: connection closed\n"); return 1; }
			got[c] += r;
			if (busy[c] && got[c] >= want[c]) busy[c] = 0, idle[nidle++] = c, answered++;
		}
		if (k == 0 && spin_us && nidle > 0)
			while (now_ns() < due)
				;
	}
	for (long long i = 0; i < n; i++) {
		lagsum += lags[i];
		if (lags[i] > 100000) over++;
	}
	printf("sent %lld answered %lld lag mean %.1f us, over 100 us %lld\n", sent, answered, lagsum / 1e3 / n, over);
	return 0;
}
