// The umbrella module: `import TokenVault` gives the whole public API.
@_exported import Credentials
@_exported import OAuth2
@_exported import VaultCore
@_exported import VaultCrypto
