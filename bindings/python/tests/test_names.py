"""The package's public names: ``__all__`` names what exists, and
``dir(priorart)`` lists those, not the modules and typing names the
package imports for itself."""

import priorart


def test_every_public_name_exists_and_dir_lists_only_them():
    missing = [name for name in priorart.__all__ if not hasattr(priorart, name)]
    assert missing == []
    assert dir(priorart) == sorted(priorart.__all__)
    for private in ("os", "sys", "subprocess", "json", "Optional", "Union", "TYPE_CHECKING", "annotations"):
        assert private not in dir(priorart)


def test_every_public_function_and_class_is_in_all():
    public = {
        name
        for name, value in vars(priorart).items()
        if not name.startswith("_") and getattr(value, "__module__", "").startswith("priorart")
    }
    assert public - set(priorart.__all__) == set()
