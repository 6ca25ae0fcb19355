"""The systems of the simulation: one module per job, each a small class the World constructs,
holding its own caches and sharing the World's unit store (see ``docs/engine.md``, "How the
engine is laid out")."""
