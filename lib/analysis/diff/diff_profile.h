/*
 * diff_profile.h - inside `threadlens diff` (diff.h): the profiles of two
 * sides of sampled recordings, and the comparison both parts share.
 * Internal to lib/analysis/diff/.
 */
#ifndef TL_DIFF_PROFILE_H
#define TL_DIFF_PROFILE_H

#include "analysis/diff/diff.h"

/* One recording's profile, as the comparison needs it. */
struct tl_diff_psnap;

/* Read path's profile (a read of its own).  NULL with tl_error set. */
struct tl_diff_psnap *tl_diff_psnap_read(const char *path);
void tl_diff_psnap_free(struct tl_diff_psnap *s);

/* Fill out from the na recordings before and nb after.  0, or -1 with tl_error set. */
int tl_diff_profile_compare(struct tl_diff_profile *out, struct tl_diff_psnap *const *a, size_t na,
                            struct tl_diff_psnap *const *b, size_t nb, int noise);
void tl_diff_profile_release(struct tl_diff_profile *p);

/*
 * Compare n_a values with n_b (diff.c): means, spreads, the change (b - a:
 * in points if `points`, else relative to a) and the flag: past three
 * standard errors of the difference with `noise`, else past the fixed bar.
 */
void tl_diff_compare(struct tl_diff_value *d, const double *a, size_t na, const double *b, size_t nb, int points,
                     int noise);

#endif
