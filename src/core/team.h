/* team.h owns the representation of teams (shmem_team_t points to one):
 * a strided set of world PEs. The predefined teams exist from init. */
#ifndef WEFT_TEAM_H
#define WEFT_TEAM_H

struct weft_team {
    int start, stride, size; /* world PEs start + i*stride, i < size */
    int my_pe;               /* this PE's index in the team, or -1 */
};

extern struct weft_team weft_team_world;
extern struct weft_team weft_team_shared;

void weft_team_init_predefined(void);

#endif
