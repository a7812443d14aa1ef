from oauth2_provider.oauth2_validators import OAuth2Validator


class TestOAuth2Validator(OAuth2Validator):
    """Adds profile/email claims and a custom ``roles`` claim to ID tokens and
    /userinfo/.

    DOT filters claims by scope through ``oidc_claim_scope``: name and
    preferred_username need ``profile``, email needs ``email``; ``roles`` is
    mapped to ``openid`` so it is present whenever an ID token is.
    """

    oidc_claim_scope = dict(OAuth2Validator.oidc_claim_scope, roles="openid")

    # Request-agnostic form (no ``request`` parameter): DOT then also lists
    # these claims in the discovery document's ``claims_supported``.
    def get_additional_claims(self):
        return {
            "name": lambda request: request.user.get_full_name(),
            "given_name": lambda request: request.user.first_name,
            "family_name": lambda request: request.user.last_name,
            "email": lambda request: request.user.email,
            "email_verified": lambda request: True,
            "preferred_username": lambda request: request.user.get_username(),
            "roles": lambda request: ["user"],
        }
