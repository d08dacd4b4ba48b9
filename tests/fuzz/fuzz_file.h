/* fuzz_file.h - the length of fuzz_file.c's table of runs, which cutseeds.c
 * gives a seed for each of. */
#ifndef ETLDUMP_FUZZ_FILE_H
#define ETLDUMP_FUZZ_FILE_H
#define FUZZ_FILE_RUNS 54
#endif
