"""Where scenes are made: rendered cards and piles (scenes, realistic), the domain-shift
slice (shift), the real photographs (real_photos), the streamed training batches (stream)
and the cached scenes and crops of the first stages (cache)."""
