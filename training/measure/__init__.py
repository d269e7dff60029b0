"""Where a model is judged: the realistic slices, the domain-shift slice and the real
photos, the old random test, timing, and the ship rule's figures (compare). It reads
scenes (``training.data``) and nothing else of training's: the stages that choose
thresholds and the ship rule read it."""
