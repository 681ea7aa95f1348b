"""The double-elimination knockout: winners' and losers' brackets, a grand final with the bracket reset,
best-of-N matches (:mod:`.bracket` the arithmetic, :mod:`.format` the stage format)."""
