"""Task declarations, one module per benchmark family: metadata + where the data is + protocol.

Each class here is a declaration, as in mteb's own task files: a data source from
:mod:`mteb_contrastive.sources` before a protocol class from :mod:`mteb_contrastive.protocols`,
and a ``TaskMetadata``. Finding user folders and making their task classes:
:mod:`mteb_contrastive.catalog`.
"""
