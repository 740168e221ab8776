/*
 * fuzz_tp_decode.c - libFuzzer target: arbitrary raw sample bytes into
 * tl_tp_decode() must never crash, read out of bounds or hang.
 *
 * Three decode tables are built once, from format texts embedded here (the
 * fuzzer must not depend on its working directory): this kernel's 6.18
 * formats (__data_loc strings), 4.9-era formats (fixed comms, a different
 * prev_state table) and one with a __rel_loc string.  Input layout:
 *   byte 0: which table; byte 1: which of its tracepoints (its id is
 *   written over common_type, so every decoder case is reached without the
 *   fuzzer having to guess ids, unless bit 7 of byte 0 is set);
 *   bytes 2-3: how many bytes to cut off the end (short records are the
 *   interesting ones); the rest: the raw record, in an exact-size heap
 *   buffer so that AddressSanitizer sees any read past its end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/tp_decode.h"

struct fmt {
	int table;
	unsigned kind;
	const char *text;
};

static const struct fmt formats[] = {
	{ 0, TL_TP_SCHED_SWITCH,
	  "name: sched_switch\n"
	  "ID: 372\n"
	  "format:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	  "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	  "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d "
	  "next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | "
	  "0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) "
	  "? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | "
	  "0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, "
	  "{ 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, "
	  "\"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | "
	  "0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, "
	  "REC->next_pid, REC->next_prio\n" },
	{ 0, TL_TP_SCHED_WAKING,
	  "name: sched_waking\n"
	  "ID: 375\n"
	  "format:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, REC->target_cpu\n" },
	{ 0, TL_TP_SCHED_FORK,
	  "name: sched_process_fork\n"
	  "ID: 366\n"
	  "format:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:__data_loc char[] parent_comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:pid_t parent_pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	  "\tfield:__data_loc char[] child_comm;\toffset:16;\tsize:4;\tsigned:0;\n"
	  "\tfield:pid_t child_pid;\toffset:20;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "print fmt: \"comm=%s pid=%d child_comm=%s child_pid=%d\", __get_str(parent_comm), REC->parent_pid, "
	  "__get_str(child_comm), REC->child_pid\n" },
	{ 0, TL_TP_SCHED_EXEC,
	  "name: sched_process_exec\n"
	  "ID: 365\n"
	  "format:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	  "\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, REC->old_pid\n" },
	{ 0, TL_TP_SCHED_MIGRATE,
	  "name: sched_migrate_task\n"
	  "ID: 371\n"
	  "format:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:__data_loc char[] comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prio;\toffset:16;\tsize:4;\tsigned:1;\n"
	  "\tfield:int orig_cpu;\toffset:20;\tsize:4;\tsigned:1;\n"
	  "\tfield:int dest_cpu;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "print fmt: \"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\", __get_str(comm), REC->pid, REC->prio, "
	  "REC->orig_cpu, REC->dest_cpu\n" },
	{ 0, TL_TP_TASK_RENAME,
	  "name: task_rename\n"
	  "ID: 204\n"
	  "format:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:char oldcomm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	  "\tfield:char newcomm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	  "\tfield:short oom_score_adj;\toffset:44;\tsize:2;\tsigned:1;\n"
	  "\n"
	  "print fmt: \"pid=%d oldcomm=%s newcomm=%s oom_score_adj=%hd\", REC->pid, REC->oldcomm, REC->newcomm, "
	  "REC->oom_score_adj\n" },
	{ 0, TL_TP_IRQ_ENTRY,
	  "name: irq_handler_entry\n"
	  "ID: 225\n"
	  "format:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n"
	  "\n"
	  "print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n" },
	{ 0, TL_TP_FUTEX_ENTER,
	  "name: sys_enter_futex\n"
	  "ID: 522\n"
	  "format:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:u32 * uaddr;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:int op;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:u32 val;\toffset:32;\tsize:8;\tsigned:0;\n"
	  "\tfield:const struct __kernel_timespec * utime;\toffset:40;\tsize:8;\tsigned:0;\n"
	  "\tfield:u32 * uaddr2;\toffset:48;\tsize:8;\tsigned:0;\n"
	  "\tfield:u32 val3;\toffset:56;\tsize:8;\tsigned:0;\n"
	  "\n"
	  "print fmt: \"uaddr: 0x%08lx, op: 0x%08lx, val: 0x%08lx, utime: 0x%08lx, uaddr2: 0x%08lx, val3: 0x%08lx\", "
	  "((unsigned long)(REC->uaddr)), ((unsigned long)(REC->op)), ((unsigned long)(REC->val)), ((unsigned "
	  "long)(REC->utime)), ((unsigned long)(REC->uaddr2)), ((unsigned long)(REC->val3))\n" },
	{ 0, TL_TP_BLOCK_RQ_COMPLETE,
	  "name: block_rq_complete\n"
	  "ID: 2107\n"
	  "format:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	  "\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"
	  "\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"
	  "\tfield:__data_loc char[] cmd;\toffset:44;\tsize:4;\tsigned:0;\n"
	  "\n"
	  "print fmt: \"%d,%d %s (%s) %llu + %u %s,%u,%u [%d]\", ((unsigned int) ((REC->dev) >> 20)), ((unsigned int) "
	  "((REC->dev) & ((1U << 20) - 1))), REC->rwbs, __get_str(cmd), (unsigned long long)REC->sector, "
	  "REC->nr_sector, __print_symbolic((((REC->ioprio) >> 13) & (8 - 1)), { IOPRIO_CLASS_NONE, \"none\" }, { "
	  "IOPRIO_CLASS_RT, \"rt\" }, { IOPRIO_CLASS_BE, \"be\" }, { IOPRIO_CLASS_IDLE, \"idle\" }, { "
	  "IOPRIO_CLASS_INVALID, \"invalid\"}), (((REC->ioprio) >> 3) & ((1 << 10) - 1)), ((REC->ioprio) & ((1 << 3) - "
	  "1)), REC->error\n" },
	{ 1, TL_TP_SCHED_SWITCH,
	  "name: sched_switch\n"
	  "ID: 273\n"
	  "format:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	  "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	  "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:1;\n"
	  "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	  "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d "
	  "next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, REC->prev_state & (2048-1) ? "
	  "__print_flags(REC->prev_state & (2048-1), \"|\", { 1, \"S\"} , { 2, \"D\" }, { 4, \"T\" }, { 8, \"t\" }, { "
	  "16, \"Z\" }, { 32, \"X\" }, { 64, \"x\" }, { 128, \"K\" }, { 256, \"W\" }, { 512, \"P\" }, { 1024, \"N\" }) "
	  ": \"R\", REC->prev_state & 2048 ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio\n" },
	{ 1, TL_TP_SCHED_FORK,
	  "name: sched_process_fork\n"
	  "ID: 268\n"
	  "format:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:char parent_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	  "\tfield:pid_t parent_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:char child_comm[16];\toffset:28;\tsize:16;\tsigned:1;\n"
	  "\tfield:pid_t child_pid;\toffset:44;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "print fmt: \"comm=%s pid=%d child_comm=%s child_pid=%d\", REC->parent_comm, REC->parent_pid, "
	  "REC->child_comm, REC->child_pid\n" },
	{ 1, TL_TP_SCHED_WAKEUP,
	  "name: sched_wakeup\n"
	  "ID: 276\n"
	  "format:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:int success;\toffset:32;\tsize:4;\tsigned:1;\n"
	  "\tfield:int target_cpu;\toffset:36;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, REC->target_cpu\n" },
	{ 2, TL_TP_IRQ_ENTRY,
	  "name: irq_handler_entry\n"
	  "ID: 99\n"
	  "format:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:__rel_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n"
	  "\n"
	  "print fmt: \"irq=%d name=%s\", REC->irq, __get_rel_str(name)\n" },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))
#define NTABLES 3

static struct tl_tp_table *tables[NTABLES];
static int ids[NFORMATS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void setup(void)
{
	for (int t = 0; t < NTABLES; t++)
		tables[t] = tl_tp_table_new();
	for (size_t i = 0; i < NFORMATS; i++) {
		ids[i] = tl_tp_table_add(tables[formats[i].table], formats[i].kind, formats[i].text,
		                         strlen(formats[i].text));
		if (ids[i] < 0)
			abort(); /* the embedded formats must parse */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tl_tp_decoded d;
	struct tl_tp_sample s = { .ts = 1, .pid = 10, .tid = 11, .cpu = 0 };
	size_t which, cut;
	uint8_t *raw;

	if (!tables[0])
		setup();
	if (size < 4)
		return 0;
	which = data[1] % NFORMATS;
	cut = (size_t)(data[2] | data[3] << 8) % (size - 3);
	s.raw_size = (uint32_t)(size - 4 - cut);
	raw = malloc(s.raw_size ? s.raw_size : 1);
	if (!raw)
		return 0;
	memcpy(raw, data + 4, s.raw_size);
	if (s.raw_size >= 2 && !(data[0] & 0x80)) {
		uint16_t id = (uint16_t)ids[which];
		memcpy(raw, &id, 2);
	}
	s.raw = raw;
	if (tl_tp_decode(tables[(data[0] & 0x7f) % NTABLES], &s, &d) == 1) {
		/* Touch every string the decoder handed out: they must lie inside raw. */
		volatile unsigned sum = 0;
		for (uint32_t i = 0; i < d.name.len; i++)
			sum += (unsigned char)d.name.s[i];
		for (int k = 0; k < d.nids; k++)
			for (uint32_t i = 0; i < d.ids[k].comm.len; i++)
				sum += (unsigned char)d.ids[k].comm.s[i];
		(void)sum;
	}
	free(raw);
	return 0;
}
