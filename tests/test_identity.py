import unicodedata

from mteb_contrastive.identity import fingerprint, folder_fingerprint, nfc, nfc_key


def test_nfc_merges_normal_forms():
    a = unicodedata.normalize("NFC", "José Müller")
    b = unicodedata.normalize("NFD", "José Müller")
    assert a != b
    assert nfc(a) == nfc(b)
    assert nfc_key([a]) == nfc_key([b])


def test_fingerprint_is_content():
    assert fingerprint({"a": 1, "b": ["x"]}) == fingerprint({"b": ["x"], "a": 1})
    assert fingerprint(["Dogs bark loudly."]) != fingerprint(["Cats bark loudly."])
    assert fingerprint({"x", "y"}) == fingerprint({"y", "x"})
    assert fingerprint("José") == fingerprint(unicodedata.normalize("NFD", "José"))


def test_folder_fingerprint(tmp_path):
    (tmp_path / "a.txt").write_text("one")
    f1 = folder_fingerprint(tmp_path)
    (tmp_path / ".tmp").mkdir()
    (tmp_path / ".tmp" / "x").write_text("junk")
    assert folder_fingerprint(tmp_path) == f1
    (tmp_path / "a.txt").write_text("two")
    assert folder_fingerprint(tmp_path) != f1
