"""Where a model is judged: the realistic slices, the domain-shift slice and the real
photos, the old random test, the campaign curve, timing, and the ship rule's figures
(compare)."""
