"""Throughput benchmarks: the pool against SB3's and gymnasium's vector envs, and SC2 tasks.

``sc2pool bench`` runs these; ``benchmarks/`` holds thin scripts over the same code.
"""
