@testable import AWSLocation
import Testing
import TrackingCore

/// The signer against the AWS SigV4 test suite (2015-08-30 vectors: example.amazonaws.com,
/// region us-east-1, service "service", AKIDEXAMPLE). Signatures for paths given in wire form
/// (`%E1%88%B4`) are those of botocore's SigV4Auth, which encodes the wire path once more, as the
/// specification requires for every service but S3.
@Suite struct SigV4SignerTests {
    static let credentials = Credentials(
        accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", source: "test suite")
    static let time = FixTime(iso8601: "2015-08-30T12:36:00Z")!
    static let token = "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="

    struct Vector: Sendable, CustomStringConvertible {
        var name: String
        var method: String
        var path: String
        var query = ""
        var headers: [(String, String)] = []
        var body = ""
        var token: String?
        var signedHeaders: String
        var signature: String
        var description: String { name }
    }

    static let vectors: [Vector] = [
        Vector(name: "get-vanilla", method: "GET", path: "/", signedHeaders: "host;x-amz-date",
               signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Vector(name: "get-vanilla-query-order-key-case", method: "GET", path: "/", query: "Param2=value2&Param1=value1",
               signedHeaders: "host;x-amz-date", signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        Vector(name: "get-utf8 (suite, raw path)", method: "GET", path: "/ሴ", signedHeaders: "host;x-amz-date",
               signature: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
        Vector(name: "get-utf8 (wire path)", method: "GET", path: "/%E1%88%B4", signedHeaders: "host;x-amz-date",
               signature: "697b34846207a3f72246f99d74ae1ee4fe54f44bb06730c58a0d339eb079596d"),
        Vector(name: "get-space (suite, raw path)", method: "GET", path: "/example space/", signedHeaders: "host;x-amz-date",
               signature: "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"),
        Vector(name: "get-space (wire path)", method: "GET", path: "/example%20space/", signedHeaders: "host;x-amz-date",
               signature: "446b817944c553435b35e813c261ff4e161fff982d1bacdef1c87f6785dd1662"),
        Vector(name: "post-vanilla", method: "POST", path: "/", signedHeaders: "host;x-amz-date",
               signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        Vector(name: "post-x-www-form-urlencoded", method: "POST", path: "/",
               headers: [("Content-Type", "application/x-www-form-urlencoded")], body: "Param1=value1",
               signedHeaders: "content-type;host;x-amz-date",
               signature: "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"),
        Vector(name: "get-header-value-trim", method: "GET", path: "/",
               headers: [("My-Header1", "value1"), ("My-Header2", "\"a   b   c\"")],
               signedHeaders: "host;my-header1;my-header2;x-amz-date",
               signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
        Vector(name: "post-sts-header-before", method: "POST", path: "/", token: token,
               signedHeaders: "host;x-amz-date;x-amz-security-token",
               signature: "85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead"),
    ]

    @Test(arguments: vectors)
    func signsLikeTheTestSuite(_ vector: Vector) {
        var request = HTTPRequest(
            method: vector.method, host: "example.amazonaws.com", path: vector.path, query: vector.query,
            headers: [("Host", "example.amazonaws.com")] + vector.headers.map { (name: $0.0, value: $0.1) },
            body: Array(vector.body.utf8))
        var credentials = Self.credentials
        credentials.sessionToken = vector.token
        SigV4Signer(service: "service", region: "us-east-1").sign(&request, credentials: credentials, at: Self.time)
        #expect(request.header("X-Amz-Date") == "20150830T123600Z")
        #expect(request.header("Authorization") ==
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=\(vector.signedHeaders), Signature=\(vector.signature)")
        #expect(request.header("X-Amz-Security-Token") == vector.token)
    }

    /// Signing only what the specification requires leaves other headers out of the signature:
    /// the suite's request with two headers of its own then signs as the suite's vanilla one.
    @Test func theRequiredHeadersAloneSignAsTheSuiteWithoutTheOthers() {
        let extra = Self.vectors.first { $0.name == "get-header-value-trim" }!
        let vanilla = Self.vectors.first { $0.name == "get-vanilla" }!
        var request = HTTPRequest(
            method: "GET", host: "example.amazonaws.com", path: "/",
            headers: [("Host", "example.amazonaws.com")] + extra.headers.map { (name: $0.0, value: $0.1) })
        SigV4Signer(service: "service", region: "us-east-1", signing: .required).sign(&request, credentials: Self.credentials, at: Self.time)
        #expect(request.header("Authorization") ==
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=\(vanilla.signature)")
        #expect(request.header("My-Header1") == "value1", "the unsigned headers still travel")

        var session = HTTPRequest(method: "POST", host: "example.amazonaws.com", path: "/", headers: [("Host", "example.amazonaws.com")])
        var credentials = Self.credentials
        credentials.sessionToken = "token"
        SigV4Signer(service: "service", region: "us-east-1", signing: .required).sign(&session, credentials: credentials, at: Self.time)
        #expect(session.header("Authorization")?.contains("SignedHeaders=host;x-amz-date;x-amz-security-token,") == true)
    }

    @Test func aCachedSigningKeySignsAlikeAndFollowsDateSecretAndRegion() {
        let cache = SigningKeyCache()
        func authorization(_ signer: SigV4Signer, _ credentials: Credentials, _ time: FixTime, keys: SigningKeyCache?) -> String? {
            var request = HTTPRequest(method: "GET", host: "example.amazonaws.com", path: "/", headers: [("Host", "example.amazonaws.com")])
            signer.sign(&request, credentials: credentials, at: time, keys: keys)
            return request.header("Authorization")
        }
        let east = SigV4Signer(service: "service", region: "us-east-1")
        let west = SigV4Signer(service: "service", region: "eu-west-1")
        let nextDay = FixTime(iso8601: "2015-08-31T00:00:01Z")!
        var rotated = Self.credentials
        rotated.secretAccessKey = "another-secret"
        // Each case twice with the cache (derived, then reused) must equal the uncached signature.
        for (signer, credentials, time) in [(east, Self.credentials, Self.time), (east, Self.credentials, nextDay),
                                            (west, Self.credentials, nextDay), (west, rotated, nextDay)] {
            let expected = authorization(signer, credentials, time, keys: nil)
            #expect(authorization(signer, credentials, time, keys: cache) == expected)
            #expect(authorization(signer, credentials, time, keys: cache) == expected)
        }
        #expect(authorization(east, Self.credentials, Self.time, keys: cache)?.hasSuffix("Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31") == true)
    }

    @Test func canonicalRequestOfGetVanilla() {
        let request = HTTPRequest(method: "GET", host: "example.amazonaws.com", path: "/",
                                  headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")])
        let (canonical, signed) = SigV4Signer(service: "service", region: "us-east-1").canonicalRequest(request)
        #expect(canonical == "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(signed == "host;x-amz-date")
    }

    @Test func signingKeyMatchesTheDocumentedDerivation() {
        // The IAM documentation's example: 20120215, us-east-1, iam.
        let key = SigV4Signer(service: "iam", region: "us-east-1").signingKey(secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", date: "20120215")
        #expect(Digest.hex(key) == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d")
    }

    @Test func encodesByRFC3986() {
        #expect(SigV4Signer.uriEncode("a b/c~d-e_f.g:h") == "a%20b%2Fc~d-e_f.g%3Ah")
        #expect(SigV4Signer.canonicalURI("/a/./b/../c//d/") == "/a/c/d/")
        #expect(SigV4Signer.canonicalQuery("b=2&a=x%20y&c=%2F&a=a") == "a=a&a=x%20y&b=2&c=%2F")
    }

    @Test func credentialsNeverPrintTheirSecrets() {
        var credentials = Self.credentials
        credentials.sessionToken = Self.token
        let text = "\(credentials)"
        #expect(!text.contains("wJalrXUtnFEMI"))
        #expect(!text.contains(Self.token))
        #expect(!text.contains("AKIDEXAMPLE"))
    }
}
