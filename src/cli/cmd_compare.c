/* rve compare - voxel agreement between two grain maps. */
#include "config.h"
#include "cli/cli_map.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_compare = {
    "compare", "voxel agreement between two grain maps",
    "Usage: rve compare [OPTIONS] A B\n"
    "Voxel agreement between two grain maps of the same grid (e.g. a DCT map A\n"
    "and the rasterised fit B): grains of A are matched to grains of B, then\n"
    "  agreement = (non-void voxels of A whose B label is the match of their A\n"
    "               label) / (non-void voxels of A)\n"
    "and every grain of A gets its IoU |A_a n B_b| / |A_a u B_b| with its match.\n"
    "\n"
    "Options:\n"
    "      --match MODE      overlap (default): one-to-one, greedily by decreasing\n"
    "                        overlap; identity: label l of A is label l of B;\n"
    "                        ids: grains with the same original id (.tesr *id)\n"
    "      --grains          also print one line per grain of A: id label match\n"
    "                        match_id iou (match: label in B, match_id: its id)\n"
    "      --json            JSON summary (with per-grain IoU) on stdout\n"
    CLI_MAP_HELP
    "                        (applied to both maps)\n"
    "  -q, -v, -j N, -h      quiet, verbose, threads, help\n"
    "\n"
    "Example:\n"
    "  rve compare grains.tif fit.tif --match identity\n",
    run,
};

enum { OPT_MATCH = CLI_OPT_FIRST, OPT_GRAINS };

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONG,
        CLI_MAP_LONG,
        {"match", required_argument, NULL, OPT_MATCH},
        {"grains", no_argument, NULL, OPT_GRAINS},
        {NULL, 0, NULL, 0},
    };
    const cli_command *cmd = &cli_cmd_compare;
    cli_common com;
    cli_common_init(&com);
    rve_map_load_opts lo;
    cli_map_opts_init(&lo);
    rve_cmp_mode mode = RVE_CMP_MATCH;
    int grains = 0, opt;
    while ((opt = getopt_long(argc, argv, CLI_COMMON_SHORT, longopts, NULL)) != -1) {
        int r = cli_common_option(&com, cmd, opt, optarg);
        if (r == 2)
            return 0;
        if (r < 0)
            return 2;
        if (r == 1)
            continue;
        r = cli_map_option(cmd, &lo, opt, optarg);
        if (r < 0)
            return 2;
        if (r == 1)
            continue;
        switch (opt) {
        case OPT_MATCH:
            if (strcmp(optarg, "overlap") == 0)
                mode = RVE_CMP_MATCH;
            else if (strcmp(optarg, "identity") == 0)
                mode = RVE_CMP_IDENTITY;
            else if (strcmp(optarg, "ids") == 0)
                mode = RVE_CMP_IDS;
            else
                return cli_usage_error(cmd, "--match: expected overlap, identity or ids, got '%s'", optarg);
            break;
        case OPT_GRAINS: grains = 1; break;
        default: return cli_bad_option(cmd, argc, argv);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error(cmd, "expected two grain maps, got %d arguments", argc - optind);
    cli_common_apply(&com);
    rve_err err;
    rve_err_clear(&err);
    rve_map *a = NULL, *b = NULL;
    const char *pa = argv[optind], *pb = argv[optind + 1];
    if (rve_map_load(pa, &lo, &a, &err) != RVE_OK)
        return cli_fail(cmd, &err);
    if (rve_map_load(pb, &lo, &b, &err) != RVE_OK) {
        rve_map_free(a);
        return cli_fail(cmd, &err);
    }
    /* Per-label tables are sized by the largest label: renumber sparse maps
     * (ids kept) unless labels are compared as they are. */
    if (mode == RVE_CMP_IDENTITY) { /* one numbering for both: label l stays label l's match */
        int sparse = 0;
        for (int q = 0; q < 2; q++) {
            const rve_map *m = q ? b : a;
            sparse |= m->nlabels > 1024 && m->nlabels / 2 > rve_map_ngrains(m);
        }
        if (sparse && rve_map_renumber_pair(a, b, &err) != RVE_OK) {
            rve_map_free(a), rve_map_free(b);
            return cli_fail(cmd, &err);
        }
    } else {
        rve_map *mm[2] = {a, b};
        for (int q = 0; q < 2; q++)
            if (mm[q]->nlabels > 1024 && mm[q]->nlabels / 2 > rve_map_ngrains(mm[q]) &&
                rve_map_renumber(mm[q], &err) != RVE_OK) {
                rve_map_free(a), rve_map_free(b);
                return cli_fail(cmd, &err);
            }
    }
    /* an all-void A has no voxel to agree on: "100 % (0 of 0)" said nothing */
    if (rve_map_ngrains(a) == 0) {
        rve_err_set(&err, RVE_EDATA, pa, "no grain (all voxels are void): nothing to compare");
        rve_map_free(a), rve_map_free(b);
        return cli_fail(cmd, &err);
    }
    rve_map_cmp *c;
    if (rve_map_compare(a, b, mode, &c, &err) != RVE_OK) {
        snprintf(err.file, sizeof err.file, "%s", pb);
        rve_map_free(a), rve_map_free(b);
        return cli_fail(cmd, &err);
    }
    if (com.json) {
        rve_json j;
        rve_json_init(&j, stdout);
        rve_json_begin_object(&j);
        rve_json_kv_string(&j, "a", pa);
        rve_json_kv_string(&j, "b", pb);
        rve_json_kv_string(&j, "match", mode == RVE_CMP_MATCH ? "overlap" : mode == RVE_CMP_IDENTITY ? "identity" : "ids");
        rve_json_kv_int(&j, "voxels", (long long)c->nvox);
        rve_json_kv_int(&j, "agree", (long long)c->nagree);
        rve_json_kv_number(&j, "agreement", c->agreement);
        rve_json_kv_number(&j, "mean_iou", c->mean_iou);
        rve_json_kv_int(&j, "grains_a", c->ngrains_a);
        rve_json_kv_int(&j, "matched", c->nmatched);
        rve_json_key(&j, "grain");
        rve_json_begin_array(&j);
        size_t *cnt = NULL;
        if (rve_map_counts(a, &cnt, &err) != RVE_OK) {
            rve_map_cmp_free(c);
            rve_map_free(a), rve_map_free(b);
            return cli_fail(cmd, &err);
        }
        for (uint32_t l = 1; l <= a->nlabels; l++) {
            if (!cnt[l])
                continue;
            rve_json_begin_object(&j);
            rve_json_kv_int(&j, "id", rve_map_id(a, l));
            rve_json_kv_int(&j, "label", l);
            rve_json_kv_int(&j, "match", c->match[l]);
            rve_json_kv_int(&j, "match_id", c->match[l] ? rve_map_id(b, c->match[l]) : 0);
            rve_json_kv_number(&j, "iou", c->iou[l]);
            rve_json_end_object(&j);
        }
        free(cnt);
        rve_json_end_array(&j);
        rve_json_end_object(&j);
        putchar('\n');
    } else {
        printf("voxel agreement %.4f %% (%zu of %zu non-void voxels of A), mean IoU %.4f, %u of %u grains matched\n",
               100 * c->agreement, c->nagree, c->nvox, c->mean_iou, c->nmatched, c->ngrains_a);
        if (grains) {
            printf("# id label match match_id iou\n");
            for (uint32_t l = 1; l <= a->nlabels; l++)
                if (c->match[l] || c->iou[l] > 0)
                    printf("%u %u %u %u %.6f\n", rve_map_id(a, l), l, c->match[l],
                           c->match[l] ? rve_map_id(b, c->match[l]) : 0, c->iou[l]);
        }
    }
    rve_map_cmp_free(c);
    rve_map_free(a), rve_map_free(b);
    return 0;
}
