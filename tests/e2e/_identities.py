"""A Jupyter Server identity provider for the tests: each of a few tokens signs in one named
person (``ada``, ``grace``), as a hub or a team's login would; the server's own token still signs
in its anonymous user.

Configured as ``--ServerApp.identity_provider_class=e2e._identities.NamedTokens`` with the
``tests`` folder on the server's ``PYTHONPATH`` and ``NamedTokens.tokens`` (token → username) in
its config file.
"""

from __future__ import annotations

from jupyter_server.auth.identity import IdentityProvider, User
from tornado import web
from traitlets import Dict, Unicode


class NamedTokens(IdentityProvider):
    """Signs in the person a token names; any other request as Jupyter's token provider does."""

    tokens = Dict(key_trait=Unicode(), value_trait=Unicode(), config=True, help="token → username")

    async def get_user_token(self, handler: web.RequestHandler) -> User | None:
        name = self.tokens.get(self.get_token(handler) or "")
        if name:
            return User(username=name, name=name, display_name=name.title())
        user: User | None = await super().get_user_token(handler)
        return user
