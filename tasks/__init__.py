"""Task definitions, one module per benchmark family. Declarative: metadata + protocol + loader."""

from __future__ import annotations


def all_task_classes() -> list[type]:
    """Every task class of the extension, including those made from local dataset folders."""
    from mteb_contrastive.tasks.halvest import HALvestPairClassification, HALvestRetrieval, HALvestTripletClassification
    from mteb_contrastive.tasks.local import local_task_classes
    from mteb_contrastive.tasks.pan import PAN20Verification, PAN21Verification, verification_task_classes
    from mteb_contrastive.tasks.paragraph_vector import CranfieldIRTriplets
    from mteb_contrastive.tasks.quoter import QUOTER_TASKS

    return [
        HALvestTripletClassification,
        HALvestRetrieval,
        HALvestPairClassification,
        *local_task_classes(),
        PAN20Verification,
        PAN21Verification,
        *verification_task_classes(),
        *QUOTER_TASKS,
        CranfieldIRTriplets,
    ]
