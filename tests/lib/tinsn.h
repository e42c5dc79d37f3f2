/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw BPF instructions, as the kernel's <linux/filter.h> spells them, for
 * the guest suites that load small fuse-bpf programs without a compiler
 * (bpf_prog_load() of an array of struct bpf_insn), and the fuse-bpf
 * helpers' ids (bpf-progs/fusebpf.h).
 */
#ifndef FUSEBPF_TINSN_H
#define FUSEBPF_TINSN_H
#include <linux/bpf.h>

#define BPF_FUNC_fuse_get_arg 210
#define BPF_FUNC_fuse_set_arg 211

#define BPF_MOV64_REG(d, s) \
	((struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = d, .src_reg = s })
#define BPF_MOV64_IMM(d, i) \
	((struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = d, .imm = i })
#define BPF_ALU64_IMM(op, d, i) \
	((struct bpf_insn){ .code = BPF_ALU64 | (op) | BPF_K, .dst_reg = d, .imm = i })
#define BPF_ALU64_REG(op, d, s) \
	((struct bpf_insn){ .code = BPF_ALU64 | (op) | BPF_X, .dst_reg = d, .src_reg = s })
#define BPF_LDX_MEM(sz, d, s, o) \
	((struct bpf_insn){ .code = BPF_LDX | BPF_MEM | (sz), .dst_reg = d, .src_reg = s, .off = o })
#define BPF_STX_MEM(sz, d, s, o) \
	((struct bpf_insn){ .code = BPF_STX | BPF_MEM | (sz), .dst_reg = d, .src_reg = s, .off = o })
#define BPF_ST_MEM(sz, d, o, i) \
	((struct bpf_insn){ .code = BPF_ST | BPF_MEM | (sz), .dst_reg = d, .off = o, .imm = i })
#define BPF_JMP_IMM(op, d, i, o) \
	((struct bpf_insn){ .code = BPF_JMP | (op) | BPF_K, .dst_reg = d, .off = o, .imm = i })
#define BPF_JMP_REG(op, d, s, o) \
	((struct bpf_insn){ .code = BPF_JMP | (op) | BPF_X, .dst_reg = d, .src_reg = s, .off = o })
#define BPF_CALL_HELPER(id) ((struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .imm = id })
#define BPF_EXIT_INSN() ((struct bpf_insn){ .code = BPF_JMP | BPF_EXIT })
#endif
