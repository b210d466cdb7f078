<?php
// A PSR-15 stack for PHP's built-in server: Debian's nyholm/psr7 for the messages, and
// connectors/php/FoyerPassMiddleware.php in front of a handler that answers the visitor id.
// Debian has no package of psr/http-server-middleware: its two interfaces, as the PSR-15
// standard states them, are declared here when no autoloader brought them.
declare(strict_types=1);

namespace Psr\Http\Server {
    use Psr\Http\Message\ResponseInterface;
    use Psr\Http\Message\ServerRequestInterface;

    if (!interface_exists(RequestHandlerInterface::class)) {
        interface RequestHandlerInterface
        {
            public function handle(ServerRequestInterface $request): ResponseInterface;
        }
    }
    if (!interface_exists(MiddlewareInterface::class)) {
        interface MiddlewareInterface
        {
            public function process(ServerRequestInterface $request, RequestHandlerInterface $handler): ResponseInterface;
        }
    }
}

namespace {
    use Nyholm\Psr7\Factory\Psr17Factory;
    use Nyholm\Psr7\ServerRequest;
    use Psr\Http\Message\ResponseInterface;
    use Psr\Http\Message\ServerRequestInterface;
    use Psr\Http\Server\RequestHandlerInterface;

    require_once '/usr/share/php/Nyholm/Psr7/autoload.php';
    require_once __DIR__ . '/../../../connectors/php/FoyerPassMiddleware.php';

    $factory = new Psr17Factory();
    $middleware = new FoyerPassMiddleware([
        'issuer' => getenv('FOYER_ISSUER'),
        'room' => getenv('FOYER_ROOM'),
        'jwks_url' => getenv('FOYER_JWKS_URL'),
        'login_url' => getenv('FOYER_LOGIN_URL'),
        'cache_file' => getenv('FOYER_JWKS_CACHE'),
    ], $factory);
    $page = new class ($factory) implements RequestHandlerInterface {
        public function __construct(private Psr17Factory $factory)
        {
        }

        public function handle(ServerRequestInterface $request): ResponseInterface
        {
            $body = json_encode(['visitor' => $request->getAttribute('foyer.pass')['visitor']]);
            return $this->factory->createResponse(200)->withHeader('Content-Type', 'application/json')
                ->withBody($this->factory->createStream($body));
        }
    };

    $request = new ServerRequest($_SERVER['REQUEST_METHOD'], $_SERVER['REQUEST_URI'], getallheaders());
    $response = $middleware->process($request, $page);
    http_response_code($response->getStatusCode());
    foreach ($response->getHeaders() as $name => $values) {
        foreach ($values as $value) header("$name: $value", false);
    }
    echo $response->getBody();
}
