"""Search: forced wins (VCF, VCT), alpha-beta and computer players."""

from engine.search.solver import find_vcf, find_vct

__all__ = ["find_vcf", "find_vct"]
