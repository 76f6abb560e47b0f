/* SPDX-License-Identifier: BSD-3-Clause */
/* weft-info: what this weft is and what it would do here. Prints the
 * version, the build configuration (weft_config.h), the libfabric providers
 * that offer RMA on an RDM endpoint, the tunables (tunables.def) with their
 * current values, and, after a singleton shmem_init(), the transport weft
 * actually chose and its description (limits, atomic table). With
 * --providers, each provider is also opened as weft opens it, in a 1-PE
 * weft of its own, and what weft would use there is executed and shown. */
#include <shmem.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <weft/info.h>

#include "weft_config.h"
#include "json.h" /* tools/traffic: reading traffic reports */

enum {
    SHOW_VERSION = 1 << 0,
    SHOW_CONFIG = 1 << 1,
    SHOW_PROVIDERS = 1 << 2,
    SHOW_TUNABLES = 1 << 3,
    SHOW_TRANSPORT = 1 << 4, /* needs shmem_init() */
    SHOW_ALL = (1 << 5) - 1
};

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: weft-info [OPTION]...\n"
            "Show weft's version, build configuration, libfabric providers, tunables and\n"
            "the transport it selects (after a singleton shmem_init). No option: --all.\n"
            "\n"
            "  --all         everything below (the default)\n"
            "  --version     the weft, OpenSHMEM and libfabric versions\n"
            "  --config      how this weft was built (weft_config.h)\n"
            "  --providers   libfabric providers with RMA on an RDM endpoint, the one\n"
            "                weft selects, and for each what weft uses on it, measured\n"
            "                in a 1-PE weft of its own (WEFT_ONNODE=0)\n"
            "  --tunables    the environment variables weft reads: value, default, meaning\n"
            "  --transport   start a 1-PE weft and describe its transport (AMO table...)\n"
            "  --no-init     never call shmem_init (skips the selection, --transport and\n"
            "                the measurements of --providers)\n"
            "  --traffic FILE  print the traffic report FILE (the .json that oshrun\n"
            "                --traffic writes) as a text heat map, and nothing else\n"
            "  --scale N[,N...]  the bytes each of weft's structures that grow with the\n"
            "                job takes in one PE of a job of N PEs (docs/scaling.md), and\n"
            "                nothing else; with --ppn P (PEs per host, default 64 or N),\n"
            "                --provider tcp|shm|other (default tcp), --onnode 0 (no\n"
            "                direct path), --peer-keys (the provider picks memory keys),\n"
            "                --gasnet (the GASNet interface too), --markdown\n"
            "  -h, --help    this text\n"
            "\n"
            "Environment: FI_PROVIDER / WEFT_PROVIDER restrict the provider; see --tunables.\n");
}

/* ---- --scale: the rows of the library's list (src/core/scale.def) ---- */
struct scale_job {
    long n[8];
    int nn;
    long ppn; /* 0: default */
    const char *provider;
    int onnode, peer_keys, gasnet, markdown;
};

static long job_ppn(const struct scale_job *j, long n)
{
    long p = j->ppn > 0 ? j->ppn : 64;
    return p < n ? p : n;
}

/* The conditions a job of n PEs meets (the WEFTX_INFO_SCALE_* bits). */
static unsigned job_when(const struct scale_job *j, long n)
{
    unsigned w = 0;
    if (n > job_ppn(j, n) || !j->onnode)
        w |= WEFTX_INFO_SCALE_FABRIC;
    if ((w & WEFTX_INFO_SCALE_FABRIC) && j->peer_keys)
        w |= WEFTX_INFO_SCALE_PEER_KEYS;
    if ((w & WEFTX_INFO_SCALE_FABRIC) && !strcmp(j->provider, "tcp"))
        w |= WEFTX_INFO_SCALE_COALESCE;
    if ((w & WEFTX_INFO_SCALE_FABRIC) && !strcmp(j->provider, "shm"))
        w |= WEFTX_INFO_SCALE_CMA;
    if (j->gasnet)
        w |= WEFTX_INFO_SCALE_GASNET;
    return w;
}

/* Bytes of row r in one PE of a job of n PEs, 0 where it does not apply. */
static double row_bytes(const struct weftx_info_scale_row *r, const struct scale_job *j, long n)
{
    if ((r->when & job_when(j, n)) != r->when)
        return 0;
    long host = job_ppn(j, n);
    /* The tables of zero pages hold entries of PEs reached directly only. */
    if (r->tables && !j->onnode)
        host = 0;
    if (r->tables) { /* each table in whole pages */
        double per_table = (double)r->per_host_pe / r->tables * (double)host;
        return r->tables * 4096.0 * (double)(long)((per_table + 4095) / 4096);
    }
    /* The GASNet engine's transmit context has flush marks of its own. */
    double copies = j->gasnet && !strcmp(r->name, "flush marks") ? 2 : 1;
    return copies * ((double)r->per_pe * (double)n + (double)r->per_host_pe * (double)host);
}

/* b bytes in B, KiB or MiB (one decimal past 10 KiB). */
static const char *bytes_str(double b, char *buf, size_t cap)
{
    if (b < 10 * 1024.0)
        snprintf(buf, cap, "%.0f B", b);
    else if (b < 10 * 1048576.0)
        snprintf(buf, cap, "%.1f KiB", b / 1024);
    else
        snprintf(buf, cap, "%.1f MiB", b / 1048576);
    return buf;
}

/* One cell: right-aligned in the text table, "| x " in markdown. */
static void cell(const struct scale_job *j, const char *text)
{
    if (j->markdown)
        printf(" %s |", text);
    else
        printf("  %14s", text);
}

static int print_scale(const struct scale_job *j)
{
    size_t rows = weftx_info_scale_count();
    char buf[32];
    if (j->markdown) {
        printf("| structure | owner | bytes per PE | per host PE |");
        for (int k = 0; k < j->nn; k++)
            printf(" %ld PEs |", j->n[k]);
        printf("\n|---|---|--:|--:|");
        for (int k = 0; k < j->nn; k++)
            printf("--:|");
        printf("\n");
    } else {
        printf("weft's structures that grow with the job, in one PE (%s, %ld PEs per host%s%s%s)\n",
               j->provider, j->ppn > 0 ? j->ppn : 64L, j->onnode ? "" : ", WEFT_ONNODE=0",
               j->peer_keys ? ", keys picked by the provider" : "", j->gasnet ? ", GASNet" : "");
        printf("%-28s %8s %8s", "structure", "per PE", "per host");
        for (int k = 0; k < j->nn; k++) {
            snprintf(buf, sizeof buf, "%ld PEs", j->n[k]);
            cell(j, buf);
        }
        printf("\n");
    }
    double total[8] = {0};
    for (size_t i = 0; i < rows; i++) {
        struct weftx_info_scale_row r;
        if (weftx_info_scale_row(i, &r) != 0)
            return 1;
        int used = 0;
        for (int k = 0; k < j->nn; k++)
            used |= row_bytes(&r, j, j->n[k]) > 0;
        if (!used)
            continue;
        if (j->markdown)
            printf("| %s | `%s` | %u | %u |", r.name, r.owner, r.per_pe, r.per_host_pe);
        else
            printf("%-28s %8u %8u", r.name, r.per_pe, r.per_host_pe);
        for (int k = 0; k < j->nn; k++) {
            double b = row_bytes(&r, j, j->n[k]);
            total[k] += b;
            cell(j, bytes_str(b, buf, sizeof buf));
        }
        printf("\n");
    }
    printf(j->markdown ? "| **total** | | | |" : "%-46s", "total");
    for (int k = 0; k < j->nn; k++)
        cell(j, bytes_str(total[k], buf, sizeof buf));
    printf(j->markdown ? "\n| **per PE of the job** | | | |" : "\n%-46s", "per PE of the job");
    for (int k = 0; k < j->nn; k++)
        cell(j, bytes_str(total[k] / (double)j->n[k], buf, sizeof buf));
    printf("\n");
    return 0;
}

static int parse_scale_sizes(const char *s, struct scale_job *j)
{
    char *end;
    for (j->nn = 0; *s && j->nn < 8; j->nn++) {
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 100000000 || (*end && *end != ','))
            return -1;
        j->n[j->nn] = v;
        s = *end ? end + 1 : end;
    }
    return j->nn ? 0 : -1;
}

static int scale_main(int argc, char **argv)
{
    struct scale_job j = {.provider = "tcp", .onnode = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--scale") && v) {
            if (parse_scale_sizes(v, &j) != 0) {
                fprintf(stderr, "weft-info: --scale %s: expected PE counts like 1000,16000\n", v);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--ppn") && v) {
            j.ppn = strtol(v, NULL, 10);
            if (j.ppn < 1) {
                fprintf(stderr, "weft-info: --ppn %s: expected a positive count\n", v);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--provider") && v) {
            j.provider = v;
            i++;
        } else if (!strcmp(a, "--onnode") && v) {
            j.onnode = strcmp(v, "0") != 0;
            i++;
        } else if (!strcmp(a, "--peer-keys")) {
            j.peer_keys = 1;
        } else if (!strcmp(a, "--gasnet")) {
            j.gasnet = 1;
        } else if (!strcmp(a, "--markdown")) {
            j.markdown = 1;
        } else {
            fprintf(stderr, "weft-info: --scale: unknown or incomplete option '%s'\n", a);
            return 2;
        }
    }
    if (!j.nn) {
        fprintf(stderr, "weft-info: --scale needs PE counts\n");
        return 2;
    }
    return print_scale(&j);
}

static void print_version(void)
{
    uint32_t fv = fi_version();
    printf("weft %s (OpenSHMEM %d.%d, %s)\n", WEFT_VERSION_STRING, SHMEM_MAJOR_VERSION,
           SHMEM_MINOR_VERSION, SHMEM_VENDOR_STRING);
    printf("libfabric: runtime %u.%u, built against %s\n", FI_MAJOR(fv), FI_MINOR(fv),
           WEFT_LIBFABRIC_VERSION);
}

static void print_config(void)
{
    printf("Build configuration:\n");
    printf("  version          %s\n", WEFT_VERSION_STRING);
    printf("  build type       %s\n", WEFT_BUILD_TYPE[0] ? WEFT_BUILD_TYPE : "(none)");
    printf("  C compiler       %s\n", WEFT_C_COMPILER);
    printf("  libfabric        %s\n", WEFT_LIBFABRIC_VERSION);
    printf("  sanitizers       %s\n", WEFT_SANITIZE_FLAGS[0] ? WEFT_SANITIZE_FLAGS : "off");
    printf("  install prefix   %s\n", WEFT_INSTALL_PREFIX);
    /* PMIx's locality string comes first where the launcher bound every PE
     * (runtime/topology.h). */
    const char *from_pmix = WEFT_HAVE_PMIX ? "PMIx locality of bound PEs, else " : "";
    if (WEFT_HAVE_HWLOC)
        printf("  topology         %shwloc %s (NUMA, socket, L3 domains)\n", from_pmix,
               WEFT_HWLOC_VERSION);
    else
        printf("  topology         %shost identity only, no hwloc: NUMA, socket and L3 domains "
               "are one per node\n", from_pmix);
    printf("  launchers        PMI-1 (PMI_FD, PMI_PORT)%s%s; detection order in "
           "docs/launching.md\n", WEFT_HAVE_PMIX ? ", PMIx " : ", no PMIx (libpmix-dev)",
           WEFT_HAVE_PMIX ? WEFT_PMIX_VERSION : "");
}

/* fi_getinfo for RDM endpoints with `caps`. The mr_mode bits weft can live
 * with are all advertised, so that providers that need local registration
 * or provider keys are listed too. Returns 0 or a negative fi error. */
static int get_providers(uint64_t caps, struct fi_info **info)
{
    struct fi_info *hints = fi_allocinfo();
    if (!hints)
        return -FI_ENOMEM;
    hints->caps = caps;
    hints->ep_attr->type = FI_EP_RDM;
    hints->mode = ~0ULL;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
                                  FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    int rc = fi_getinfo(weftx_info_fabric_api_version(), NULL, NULL, 0, hints, info);
    fi_freeinfo(hints);
    return rc;
}

static int same_place(const struct fi_info *a, const struct fi_info *b)
{
    return !strcmp(a->fabric_attr->prov_name, b->fabric_attr->prov_name) &&
           !strcmp(a->fabric_attr->name, b->fabric_attr->name) &&
           !strcmp(a->domain_attr->name, b->domain_attr->name);
}

/* The providers that could carry weft: RDM endpoints with RMA, one line per
 * (provider, fabric, domain); "atomics" tells whether the same triple also
 * offers FI_ATOMIC (weft uses software atomics where it does not). */
static int print_providers(void)
{
    struct fi_info *info = NULL, *amo = NULL;
    int rc = get_providers(FI_RMA, &info);
    if (rc == 0 && get_providers(FI_RMA | FI_ATOMIC, &amo) != 0)
        amo = NULL;
    printf("libfabric providers with FI_RMA on FI_EP_RDM");
    const char *fp = getenv("FI_PROVIDER");
    if (fp && *fp)
        printf(" (FI_PROVIDER=%s)", fp);
    printf(":\n");
    if (rc != 0) {
        printf("  none (fi_getinfo: %s)\n", fi_strerror(-rc));
        return 0;
    }
    printf("  %-18s %-24s %-16s %s\n", "provider", "fabric", "domain", "FI_ATOMIC");
    for (struct fi_info *i = info; i; i = i->next) {
        int dup = 0, atomics = 0;
        for (struct fi_info *j = info; j != i && !dup; j = j->next)
            dup = same_place(i, j);
        if (dup)
            continue;
        for (struct fi_info *j = amo; j && !atomics; j = j->next)
            atomics = same_place(i, j);
        printf("  %-18s %-24s %-16s %s\n", i->fabric_attr->prov_name, i->fabric_attr->name,
               i->domain_attr->name, atomics ? "yes" : "no");
    }
    fi_freeinfo(info);
    if (amo)
        fi_freeinfo(amo);
    return 0;
}

/* Seconds a provider's probe may take before it is reported as hung. */
#define PROBE_LIMIT_S 30

/* Runs this program again as `weft-info --probe-provider NAME` (a 1-PE
 * weft of its own, outside any launcher) and prints its lines indented;
 * a fault or a hang is reported after the last line it printed, so the
 * step it died in shows. */
static void probe_one(const char *prov)
{
    int fds[2];
    fflush(stdout);
    if (pipe(fds) != 0) {
        printf("  %s: pipe: %s\n", prov, strerror(errno));
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        static const char *const launcher_vars[] = {"PMI_FD", "PMI_PORT", "PMI_RANK",
                                                    "PMI_SIZE", "PMIX_NAMESPACE", "PMIX_RANK"};
        for (size_t i = 0; i < sizeof launcher_vars / sizeof *launcher_vars; i++)
            unsetenv(launcher_vars[i]);
        setenv("WEFT_ONNODE", "0", 1);
        setenv("WEFT_PROVIDER", prov, 1);
        execl("/proc/self/exe", "weft-info", "--probe-provider", prov, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    if (pid < 0) {
        printf("  %s: fork: %s\n", prov, strerror(errno));
        close(fds[0]);
        return;
    }
    FILE *in = fdopen(fds[0], "r");
    char line[1024];
    int at_line_start = 1, timed_out = 0;
    time_t end = time(NULL) + PROBE_LIMIT_S;
    for (;;) {
        struct pollfd pf = {fds[0], POLLIN, 0};
        int left = (int)(end - time(NULL));
        if (left <= 0 || poll(&pf, 1, left * 1000) == 0) {
            timed_out = 1;
            kill(pid, SIGKILL);
            break;
        }
        if (!fgets(line, sizeof line, in))
            break;
        printf("%s%s", at_line_start ? "  " : "", line);
        at_line_start = strchr(line, '\n') != NULL;
    }
    fclose(in);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!at_line_start)
        printf("\n");
    if (timed_out)
        printf("    => %s: no answer within %d s (killed)\n", prov, PROBE_LIMIT_S);
    else if (WIFSIGNALED(status))
        printf("    => %s: the process died of signal %d (%s) in the step above\n", prov,
               WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WEXITSTATUS(status) != 0)
        printf("    => %s: exited with status %d\n", prov, WEXITSTATUS(status));
}

/* What weft would use on each provider of the list, measured: one child
 * per provider name (fabrics and domains of one provider share it). */
static void probe_providers(void)
{
    struct fi_info *info = NULL;
    if (get_providers(FI_RMA, &info) != 0)
        return;
    printf("\nWhat weft uses on each provider (a 1-PE weft per provider, WEFT_ONNODE=0;\n"
           "each operation executed against itself on an endpoint of its own):\n");
    for (struct fi_info *i = info; i; i = i->next) {
        int dup = 0;
        for (struct fi_info *j = info; j != i && !dup; j = j->next)
            dup = !strcmp(i->fabric_attr->prov_name, j->fabric_attr->prov_name);
        if (!dup)
            probe_one(i->fabric_attr->prov_name);
    }
    fi_freeinfo(info);
}

/* The child of probe_one: weft on provider prov, as a 1-PE job. */
static int probe_provider_here(void)
{
    shmem_init();
    weftx_info_probe_provider(stdout);
    fflush(stdout);
    shmem_finalize();
    return 0;
}

static void print_tunables(void)
{
    printf("Tunables (environment variables; * = set in this environment):\n");
    struct weftx_info_tunable t;
    const char *category = NULL;
    for (size_t i = 0; weftx_info_tunable(i, &t) == 0; i++) {
        if (!category || strcmp(category, t.category) != 0)
            printf(" %s:\n", t.category);
        category = t.category;
        printf("  %c %-24s = %-10s [%s, default \"%s\"]\n", t.set ? '*' : ' ', t.name,
               t.value[0] ? t.value : "\"\"", t.kind, t.def);
        printf("        %s\n", t.doc);
    }
    printf("Older names, read when the variable they stand for is unset:\n");
    const char *old, *name;
    for (size_t a = 0; (old = weftx_info_tunable_alias(a, &name)) != NULL; a++) {
        const char *v = getenv(old);
        printf("  %c %-24s -> %s\n", v && *v ? '*' : ' ', old, name);
    }
}

int main(int argc, char **argv)
{
    unsigned show = 0;
    int init = 1;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--scale"))
            return scale_main(argc, argv);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--all") || !strcmp(a, "-a")) {
            show |= SHOW_ALL;
        } else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
            show |= SHOW_VERSION;
        } else if (!strcmp(a, "--config")) {
            show |= SHOW_CONFIG;
        } else if (!strcmp(a, "--providers")) {
            show |= SHOW_PROVIDERS;
        } else if (!strcmp(a, "--tunables")) {
            show |= SHOW_TUNABLES;
        } else if (!strcmp(a, "--transport")) {
            show |= SHOW_TRANSPORT;
        } else if (!strcmp(a, "--traffic")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "weft-info: --traffic needs a report (report.json)\n");
                return 2;
            }
            /* Colour only for a terminal that takes it (NO_COLOR: no-color.org). */
            const char *term = getenv("TERM");
            int color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR") && term &&
                        strcmp(term, "dumb") != 0;
            return tr_print_text(argv[i + 1], stdout, color);
        } else if (!strcmp(a, "--probe-provider") && i + 1 < argc) {
            return probe_provider_here(); /* probe_one's child; WEFT_PROVIDER names it */
        } else if (!strcmp(a, "--no-init")) {
            init = 0;
        } else {
            fprintf(stderr, "weft-info: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!show)
        show = SHOW_ALL;

    /* Under a launcher only the first PE talks. */
    const char *rank = getenv("PMI_RANK");
    if (!rank)
        rank = getenv("PMIX_RANK");
    int quiet = rank && atoi(rank) != 0;
    if (quiet && !freopen("/dev/null", "w", stdout))
        return 1;

    if (show & SHOW_VERSION)
        print_version();
    if (show & SHOW_CONFIG) {
        if (show != SHOW_CONFIG)
            printf("\n");
        print_config();
    }
    if (show & SHOW_PROVIDERS) {
        if (show & (SHOW_VERSION | SHOW_CONFIG))
            printf("\n");
        if (print_providers() != 0)
            return 1;
        if (init && !quiet)
            probe_providers();
    }
    if (show & SHOW_TUNABLES) {
        if (show & (SHOW_VERSION | SHOW_CONFIG | SHOW_PROVIDERS))
            printf("\n");
        print_tunables();
    }

    if (!init || !(show & (SHOW_PROVIDERS | SHOW_TRANSPORT)))
        return 0;

    /* Start weft for real (a singleton unless launched) and ask it. */
    fflush(stdout);
    shmem_init();
    if (shmem_my_pe() == 0) {
        printf("\nweft selected provider: %s (launcher: %s, %d PE%s)\n",
               weftx_info_provider(), weftx_info_launcher(), shmem_n_pes(),
               shmem_n_pes() == 1 ? "" : "s");
        printf("bootstrap: %s\n", weftx_info_launcher_reason());
        if (show & SHOW_TRANSPORT) {
            printf("\nTransport:\n");
            fflush(stdout);
            weftx_info_describe_transport(stdout);
        }
        fflush(stdout);
    }
    shmem_finalize();
    return 0;
}
