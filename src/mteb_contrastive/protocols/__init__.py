"""mteb AbsTask subclasses, one per protocol. They hold the papers' rules."""
