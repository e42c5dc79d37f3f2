// SPDX-License-Identifier: GPL-2.0
/* One libbpf ring buffer manager over several ring maps. */
#include <errno.h>

#include "ringbuf.h"

struct ring_buffer *ringbuf_open_all(const int *fds, int n, ring_buffer_sample_fn fn,
				     void *const *ctxs, int *failed)
{
	struct ring_buffer *rb = NULL;
	int err;

	for (int i = 0; i < n; i++) {
		if (!rb) {
			rb = ring_buffer__new(fds[i], fn, ctxs[i], NULL);
			err = rb ? 0 : -errno;
		} else {
			err = ring_buffer__add(rb, fds[i], fn, ctxs[i]);
		}
		if (err) {
			/* libbpf's error, or errno; the rings added so far go too. */
			ring_buffer__free(rb);
			*failed = i;
			errno = -err;
			return NULL;
		}
	}
	return rb;
}
