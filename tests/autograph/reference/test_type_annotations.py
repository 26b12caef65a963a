"""Reference: a bare annotation ``n: int`` (TensorFlow's type_annotations_test)."""

from ref_testing import check


def annotation_only():
    n: int  # noqa: F842
    return 1


def annotated_assignment(x):
    y: int = x + 1
    return y


def test_bare_annotation():
    check(annotation_only)


def test_annotated_assignment():
    check(annotated_assignment, (2,), "py")
    check(annotated_assignment, (2,), "t")
