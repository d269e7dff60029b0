"""Where scenes are made: rendered cards and piles (scenes, realistic), the domain-shift
slice (shift), the real photographs (real_photos), the localiser's training targets
(targets), the streamed training batches (stream) and the cached scenes and crops of the
first stages (cache)."""
