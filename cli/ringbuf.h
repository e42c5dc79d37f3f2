/* SPDX-License-Identifier: GPL-2.0 */
/* One libbpf ring buffer manager over several ring maps (events). */
#ifndef FUSEBPFCTL_RINGBUF_H
#define FUSEBPFCTL_RINGBUF_H

#include <bpf/libbpf.h>

/*
 * A ring buffer manager over the n ring maps fds[], each calling fn with
 * ctxs[i]. On failure what was opened is freed, *failed is the index of the
 * map that failed, and the result is NULL with errno set.
 */
struct ring_buffer *ringbuf_open_all(const int *fds, int n, ring_buffer_sample_fn fn,
				     void *const *ctxs, int *failed);

#endif
