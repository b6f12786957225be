"""Loaders (Hub schemas, local folders) and builders (your corpus -> benchmark folders).

Input validation lives here: every error names the file, the row and the field.
"""
