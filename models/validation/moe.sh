#!/bin/sh
# models/validation/moe.sh [BIN] - podplan predict against published MoE
# training runs. Each row of models/validation/moe-published.csv names a
# scenario under models/validation/moe/ that states the published
# configuration (and, in _source / _assumed, the recipe it was read from and
# what podplan assumed where the recipe is silent or podplan cannot follow
# it); its measured step (measured_s, from the published tokens/s/GPU or
# step time: see each row's source and notes) stays as it is. This rewrites
# predicted_s (`podplan predict SCENARIO --json` step_time_s) and error_pct
# (predicted / measured - 1, in percent) and prints the table as
# `podplan validate --replay` reads the file.
# predicted_at_commit and the columns rewritten: models/validation/repredict.sh.
exec sh models/validation/repredict.sh models/validation/moe-published.csv models/validation/moe "${1:-bin/podplan}"
