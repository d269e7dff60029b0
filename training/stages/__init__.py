"""Where each stage of the recipe runs: the training loop (loop), the localiser's loss
(loss), the localiser, classifier and refiner on cached data, the realistic fine-tuning,
the leave-one-deck-out classifier, the lite localiser, and the detection thresholds
(tuning)."""
