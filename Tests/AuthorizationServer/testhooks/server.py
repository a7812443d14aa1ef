"""The OpenID Connect server class with an ID token from the device grant (--device-id-token yes).

oauthlib's device grant is plain OAuth 2.0, so DOT never returns an ID token from it; OpenID
providers such as Auth0 and Okta return one when the scope has `openid`. This class adds it the way
oauthlib's OpenID refresh grant does (`add_id_token`: aud, iat, at_hash, then DOT's
`finalize_id_token`: iss, sub, exp, auth_time, the scope's claims, signed with the server's key).
"""

from oauthlib.oauth2.rfc8628.grant_types import DeviceCodeGrant
from oauthlib.openid import Server as OpenIDServer
from oauthlib.openid.connect.core.grant_types.base import GrantTypeBase as OpenIDGrantTypeBase

DEVICE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"


class _DeviceIDTokens(OpenIDGrantTypeBase):
    """`add_id_token` of oauthlib's OpenID grants, over the device grant's validator."""

    def __init__(self, device_grant):
        self.proxy_target = device_grant


class _AddingIDToken:
    """A token handler whose tokens carry an ID token: oauthlib's device grant calls its token
    modifiers with the token alone, so the ID token is added where the token is made, with the
    request and the real handler at hand."""

    def __init__(self, handler, id_tokens):
        self._handler = handler
        self._id_tokens = id_tokens

    def create_token(self, request, *args, **kwargs):
        token = self._handler.create_token(request, *args, **kwargs)
        return self._id_tokens.add_id_token(token, self._handler, request)

    def __getattr__(self, name):
        return getattr(self._handler, name)


class OpenIDDeviceCodeGrant(DeviceCodeGrant):
    """The device grant, with an ID token in the answer when the scope has `openid`."""

    def create_token_response(self, request, token_handler):
        return super().create_token_response(request, _AddingIDToken(token_handler, _DeviceIDTokens(self)))


class Server(OpenIDServer):
    """oauthlib's OpenID Connect server (DOT's default) with the device grant above."""

    def __init__(
        self, request_validator, token_expires_in=None, token_generator=None, refresh_token_generator=None,
        *args, **kwargs
    ):
        super().__init__(
            request_validator, token_expires_in, token_generator, refresh_token_generator, *args, **kwargs
        )
        # Made as the parent makes its own, with the same arguments.
        self.device_code_grant = OpenIDDeviceCodeGrant(request_validator, **kwargs)
        self.grant_types[DEVICE_GRANT_TYPE] = self.device_code_grant
