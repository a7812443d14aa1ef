from django.apps import AppConfig


class TestHooksConfig(AppConfig):
    name = "testhooks"
    default_auto_field = "django.db.models.BigAutoField"
