"""Metrics mteb does not compute: triplet accuracy, PAN metrics, calibration, error rate."""
