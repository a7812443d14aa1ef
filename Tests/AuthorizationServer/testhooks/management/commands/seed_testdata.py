"""Seeds the template database: the test user and the fixed OAuth clients.

Keep this table in sync with README.md (the Swift tests hard-code these).
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from oauth2_provider.models import get_application_model

REDIRECT_URI = "http://127.0.0.1/callback"

USER = {
    "username": "testuser",
    "password": "testpass",
    "email": "testuser@example.com",
    "first_name": "Test",
    "last_name": "User",
}


def clients():
    A = get_application_model()
    return [
        {
            "client_id": "tv-public-pkce",
            "client_secret": None,
            "name": "Public authorization code + PKCE",
            "client_type": A.CLIENT_PUBLIC,
            "authorization_grant_type": A.GRANT_AUTHORIZATION_CODE,
            "redirect_uris": REDIRECT_URI,
            "skip_authorization": True,
            "algorithm": A.RS256_ALGORITHM,
        },
        {
            "client_id": "tv-confidential-code",
            "client_secret": "tv-confidential-code-secret",
            "name": "Confidential authorization code",
            "client_type": A.CLIENT_CONFIDENTIAL,
            "authorization_grant_type": A.GRANT_AUTHORIZATION_CODE,
            "redirect_uris": REDIRECT_URI,
            "skip_authorization": True,
            "algorithm": A.RS256_ALGORITHM,
        },
        {
            "client_id": "tv-public-password",
            "client_secret": None,
            "name": "Public password grant",
            "client_type": A.CLIENT_PUBLIC,
            "authorization_grant_type": A.GRANT_PASSWORD,
            "redirect_uris": "",
            "skip_authorization": True,
            "algorithm": A.RS256_ALGORITHM,
        },
        {
            "client_id": "tv-confidential-password",
            "client_secret": "tv-confidential-password-secret",
            "name": "Confidential password grant",
            "client_type": A.CLIENT_CONFIDENTIAL,
            "authorization_grant_type": A.GRANT_PASSWORD,
            "redirect_uris": "",
            "skip_authorization": True,
            "algorithm": A.RS256_ALGORITHM,
        },
        {
            "client_id": "tv-service",
            "client_secret": "tv-service-secret",
            "name": "Confidential client credentials",
            "client_type": A.CLIENT_CONFIDENTIAL,
            "authorization_grant_type": A.GRANT_CLIENT_CREDENTIALS,
            "redirect_uris": "",
            "skip_authorization": True,
            "algorithm": A.NO_ALGORITHM,
        },
        {
            "client_id": "tv-device",
            "client_secret": None,
            "name": "Public device authorization grant",
            "client_type": A.CLIENT_PUBLIC,
            "authorization_grant_type": A.GRANT_DEVICE_CODE,
            "redirect_uris": "",
            "skip_authorization": True,
            "algorithm": A.RS256_ALGORITHM,
        },
    ]


class Command(BaseCommand):
    help = "Create the TokenVault test user and OAuth clients (idempotent)."

    @transaction.atomic
    def handle(self, *args, **options):
        User = get_user_model()
        user, _ = User.objects.get_or_create(username=USER["username"])
        user.email = USER["email"]
        user.first_name = USER["first_name"]
        user.last_name = USER["last_name"]
        user.set_password(USER["password"])
        user.save()

        Application = get_application_model()
        for spec in clients():
            spec = dict(spec)
            secret = spec.pop("client_secret")
            app = Application.objects.filter(client_id=spec["client_id"]).first() or Application(
                client_id=spec["client_id"]
            )
            for key, value in spec.items():
                setattr(app, key, value)
            # Public clients get a random (hashed) secret nobody knows: they
            # authenticate with client_id alone. Confidential secrets are
            # hashed on save (hash_client_secret=True); clients send the
            # plaintext listed above.
            app.client_secret = secret if secret is not None else Application._meta.get_field(
                "client_secret"
            ).get_default()
            app.hash_client_secret = True
            app.save()
        self.stdout.write("seeded %d clients and user %s" % (len(clients()), USER["username"]))
