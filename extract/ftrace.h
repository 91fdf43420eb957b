/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMF_FTRACE_H
#define KMF_FTRACE_H

#include <stdbool.h>
#include <stdio.h>

/* save --from-ftrace [INSTANCE] FILE: argv[first..] are the operands. */
int kmf_save_from_ftrace(int argc, char **argv, int first, bool keep,
			 bool quiet, bool no_addresses);
void kmf_save_from_ftrace_usage(FILE *f);

#endif
