from __future__ import annotations

import ipyask
import ipyask.testing


def test_all_lists_exactly_the_public_names() -> None:
    for module in (ipyask, ipyask.testing):
        public = {name for name in vars(module) if not name.startswith("_")}
        exported = set(module.__all__)
        assert exported - {"__version__"} <= public
        submodules = {name for name in public if type(getattr(module, name)).__name__ == "module"}
        assert public - exported - submodules == set()
        assert sorted(module.__all__) == sorted(set(module.__all__))
