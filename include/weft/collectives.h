/* weft/collectives.h: teams and collective routines of shmem.h (OpenSHMEM
 * 1.5/1.6), included by shmem.h. */
#ifndef WEFT_COLLECTIVES_H
#define WEFT_COLLECTIVES_H
#endif
