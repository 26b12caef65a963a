"""Layer 2, the IR: graphs of nodes over abstract values (``graph``), their text form
(``printer``), the verifier (``verify``), export to other tools (``export``) and pictures
(``layout``, ``svg``, ``graphviz``, ``pictures``). Imports only the base layer."""
