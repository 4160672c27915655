"""Every word list of the policy, each written once.

- credential names: the last word of a name that holds a password, a token or a private key,
  and the words that make a name something else (a cache key, a page token);
- values that stand for a secret instead of being one (placeholders);
- labels: the words that say what a number is (an order, a card, an identity number).
"""

from __future__ import annotations

# --- credential names ---------------------------------------------------------------------

# The last word of a name that holds a password: any literal of four or more characters.
PASSWORD_WORDS = frozenset(
    """
    password passwd pwd pass passphrase passcode pword pswd psw pw secret psk
    passwort kennwort contrasena contrasenya senha wachtwoord wagwoord salasana heslo haslo
    lozinka geslo sifre jelszo parola parool parole adgangskode passord losenord motdepasse
    clave contrasinal sandi katasandi katalaluan mima passe
    """.split()
)
# The last word of a name that holds a generated token: the value must look random.
TOKEN_WORDS = frozenset(
    """
    token apikey authkey authtoken credential credentials creds cred auth cookie sessionid
    session sessid sid signature sig sas bearer jwt pat accesskey secretkey apisecret dsn
    """.split()
)
PRIVATE_WORDS = frozenset("privatekey privkey".split())
# Words after the meaningful one that still name the secret itself ("password_confirm").
TRAILING = frozenset(
    "confirm confirmation again repeat plain plaintext raw value val str string literal "
    "b64 base64 hex".split()
)
# A key or token named with one of these before it is not a secret.
NOT_SECRET_QUALIFIERS = frozenset(
    """
    cache primary foreign sort partition hash range routing idempotency dedup dedupe lookup
    index map object s3 bucket file i18n translation locale unique composite natural
    surrogate row column group shard public pub publishable hot shortcut keyboard music
    registry dict json yaml config setting settings header field param query redis kv
    cursor pagination page next prev previous continuation sync max min num count total
    prompt completion input output context limit stop eos bos pad unk mask sep cls special
    lexer parser syntax design css trace span correlation request message event order item
    product entity record schema version release feature flag experiment variant sku asset
    media image upload download candidate join merge match type id name
    """.split()
)

# --- placeholders -------------------------------------------------------------------------

PLACEHOLDERS = frozenset(
    """
    none null nil undefined empty unset notset missing tbd todo n/a na nan
    true false yes no on off enabled disabled enable disable required optional
    str string int integer bool boolean bytes text any object number float char varchar
    binary blob uuid date datetime list dict map array secretstr secretbytes
    password passwd pwd pass secret secrets token apikey api_key key value
    changeme change_me change-me changeit redacted removed hidden masked omitted
    example sample dummy placeholder foo bar baz xxx xxxx
    """.split()
)
# Pieces that mark a placeholder wherever they stand in a value.
PLACEHOLDER_PIECES = (
    "your", "here", "replace", "insert", "example", "placeholder", "redact", "dummy",
    "changeme", "change_me", "change-me", "xxxx", "<", ">", "{{", "${", "$(", "...", "\u2026",
)  # fmt: skip

# --- labels of numbers --------------------------------------------------------------------

BENIGN = "benign"
CARD = "card"
IDENTITY = "identity"

_BENIGN_WORDS = """
coordinates coordinate lat lon lng latitude longitude usd eur gbp part parts pn order orders
ord invoice inv sku item items article art model ref reference
ticket case incident issue bug pr po purchase lot batch catalog catalogue cat product
shipment parcel package awb waybill consignment booking confirmation reservation pnr
transaction txn tx receipt bill customer client member membership employee student account
isbn issn doi ean upc gtin asin mpn isin cusip sedol phone tel telephone mobile cell fax
call whatsapp build version release job run pipeline commit revision rev request req trace
span correlation message msg zip postal postcode plz cep room flight train seat gate vin
imei mac ip port route table row line page chapter section figure step qty quantity amount
total price cost size weight sha hash checksum crc md5 uuid guid nonce epoch timestamp unix
serial sn patent claim policy contract quote quotation estimate project task story sprint
bestellung bestellnummer rechnung rechnungsnummer artikel artikelnummer auftrag kunde
commande facture pedido factura fattura ordine bestelling factuur ordre faktura tracking
sendung lieferung envio colis spedizione zending iban bic swift routing loyalty meeting
"""
_CARD_WORDS = """
card cards cc ccn credit debit visa mastercard amex discover diners jcb unionpay maestro
mir rupay kreditkarte karte carte tarjeta cartão cartao carta kaart kort karta kartu карта
карты bankcard pay paid
"""
_IDENTITY_WORDS = """
ssn ss itin ein tin taxpayer tfn nino nhs sin nas bsn burgerservicenummer sofinummer
personnummer personnr fødselsnummer fodselsnummer cpr henkilötunnus hetu kennitala pesel
nip dni nie nif nss codice fiscale steuerid steuer steuernummer steueridentifikationsnummer
idnr identifikationsnummer sozialversicherungsnummer svnr versicherungsnummer
personalausweis ausweisnummer ausweis personalausweisnummer reisepass reisepassnummer
passnummer passport passeport pasaporte passaporto paspoort passaporte pasport paszport
cédula cedula curp rfc rut cuil cuit dui cpf aadhaar aadhar nric hkid mykad nik ktp cnic
iqama kimlik tckn cnp egn егн oib jmbg emšo emso snils снилс инн паспорт isikukood amka
αμκα αφμ afm medicare medicaid mbi licence license dl ppsn pps ird nhi abn pan rg nin
uci brp aufenthaltstitel séjour sejour alien uscis ead zehut ic rijbewijs rijbewijsnummer
paspoortnummer führerschein führerscheinnummer fuehrerschein passportnumber
"""
_NATIONALITIES = """
african american british canadian indian chinese japanese korean brazilian mexican german
french spanish italian dutch swedish norwegian danish finnish polish turkish israeli saudi
emirati kenyan nigerian egyptian pakistani indonesian malaysian thai filipino vietnamese
resident voter civil citizen citizens government
"""
LABELS: dict[str, str] = {
    **{word: BENIGN for word in _BENIGN_WORDS.split()},
    **{word: CARD for word in _CARD_WORDS.split()},
    **{word: IDENTITY for word in _IDENTITY_WORDS.split()},
}
# Two-word labels of identity numbers ("social security", "tax id"), and "id number" unless
# a benign label stands before it ("order id number").
PHRASES = frozenset(
    (*(tuple(pair.split("/")) for pair in """
    social/security social/insurance national/insurance national/id national/identity
    identity/number identity/card identification/number id/card personal/id personal/number
    personal/identity citizen/id tax/id tax/number tax/file emirates/id tc/kimlik asmens/kodas
    personas/kods rodné/číslo rodne/cislo codice/fiscale pan/card pan/number ni/number ni/no
    sécurité/sociale securite/sociale seguridad/social seguro/social segurança/social
    previdenza/sociale green/card ead/card residence/permit visa/number visa/grant a/number
    sv/nummer identificación/fiscal identificacion/fiscal id/number id/no id/nr id/num
    """.split()),
    *((nationality, "id") for nationality in _NATIONALITIES.split()),
))  # fmt: skip
# Labels written without spaces in their script, found inside a longer run of letters.
LABEL_INFIXES = (
    *((infix, IDENTITY) for infix in (
        "身份证", "身份證", "居民身份", "マイナンバー", "個人番号", "주민등록", "주민번호", "护照",
        "護照", "旅券", "여권", "الهوية", "جواز", "תעודת", "ת.ז", "الرقم القومي", "パスポート",
        "運転免許")),
    *((infix, CARD) for infix in ("卡号", "信用卡", "銀行卡", "カード", "카드", "بطاقة", "כרטיס")),
)  # fmt: skip
# Short labels that are also ordinary words or name parts count only in capitals ("RG").
SPELLED_IN_CAPITALS = frozenset("rg dl ss sin pan nie nip rut dni tin nin uci brp ead ic".split())
# Labels of numbers that never have more than twelve digits (without a phone's "+"): phone
# numbers (which have no social security shape either) and counts, such as a page or a row.
SHORT_LABELS = {
    **dict.fromkeys("phone tel telephone mobile cell fax call whatsapp".split(), "phone"),
    **dict.fromkeys(
        """room seat gate port table row line page chapter section figure step qty quantity
        amount total price cost size weight""".split(),
        "count",
    ),
}
