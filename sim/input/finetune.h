/*
 * finetune.h - how a training run updates the model's weights: every
 * weight (full), or a frozen base with LoRA adapters (lora: the base in
 * 16 bits; qlora: in 4-bit NF4, Dettmers et al. 2023), and what a method
 * sets on the training settings. The scenario's training.finetune and a
 * cost option's or work's "method" name one; models.json "finetune" holds
 * the adapter rank and NF4's stored size.
 */
#ifndef PP_FINETUNE_H
#define PP_FINETUNE_H

/* scenario.h, catalog.h */
typedef struct pp_training pp_training;
typedef struct pp_catalog pp_catalog;

typedef enum pp_ft_method {
	PP_FT_FULL,   /* every weight trained (pretraining, full fine-tune) */
	PP_FT_LORA,   /* frozen bf16 base, LoRA adapters */
	PP_FT_QLORA,  /* frozen 4-bit NF4 base, LoRA adapters (Dettmers et al. 2023) */
	PP_FT_AUTO,   /* full when it fits in memory, else qlora */
	PP_FT_COUNT
} pp_ft_method;
extern const char *const pp_ft_method_names[PP_FT_COUNT];

/* Train with method m (full, lora or qlora; not auto): sets the frozen
 * base's stored bytes per weight from the precision or the catalog's NF4
 * size. The scenario loader and a cost option's method use it. */
void pp_training_set_finetune(pp_training *tr, pp_ft_method m, const pp_catalog *cat);

#endif
