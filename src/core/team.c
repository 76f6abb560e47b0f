/* team.c owns the predefined teams. */
#include "team.h"
#include "runtime.h"

struct weft_team weft_team_world;
struct weft_team weft_team_shared;

void weft_team_init_predefined(void)
{
    weft_team_world = (struct weft_team){0, 1, weft_rt.n_pes, weft_rt.my_pe};
    /* Without the on-node path only this PE can be reached by load/store. */
    weft_team_shared = (struct weft_team){weft_rt.my_pe, 1, 1, 0};
}
